/**
 * What this instance last drew for people, kept a while: the page of approvals a user was shown for
 * a query, the page of items a Details window shows, a user's Home. A decision then redraws the list
 * and the Details it came from out of the one reading of the approval that follows it, rather than
 * asking the service for all of it again (the service is the scarce resource). Per instance,
 * bounded, and forgotten after response_url's half hour; what is not here (drawn by another
 * instance, or long ago) is asked of the service as before.
 */

import type { ItemsOutcome } from '../../approvals/details.js';
import type { HomeOutcome } from '../../home/home.js';
import { fromListedRow, type ListedRow, listedRow } from '../../render/approvals.js';
import type { Approval, ApprovalQuery } from '../../service/index.js';

export interface ShownPage {
  query: ApprovalQuery;
  approvals: readonly Approval[];
}

/**
 * A page as kept: what the list draws of each approval (render/approvals.ts's ListedRow), as one
 * JSON string. Every page drawn is kept, so each outlives V8's young generation, and V8 sizes the
 * old generation by how fast it fills: the approvals as the service's answer made them (every
 * field, an object or a string each) were about 5 KB a page promoted, the largest part of
 * countersign's RSS above the floor's under load (docs/benchmarks.md, the floor). One flat string
 * of the fields drawn is under half of that, and the collector marks it without looking inside.
 */
interface KeptPage {
  query: ApprovalQuery;
  rows: string;
}

interface Entry<T> {
  value: T;
  at: number;
}

/** A map that forgets its oldest entry past `max`, and any entry older than `ttlMs`. */
class Recent<T> {
  readonly #entries = new Map<string, Entry<T>>();
  constructor(
    private readonly now: () => Date,
    private readonly max: number,
    private readonly ttlMs: number,
  ) {}

  set(key: string, value: T): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, at: this.now().getTime() });
    if (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now().getTime() - entry.at > this.ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }
}

/** A user and a query, the same however the query's keys were ordered or an absent one written. */
function pageKey(userId: string, query: ApprovalQuery): string {
  const keys = (Object.keys(query) as Array<keyof ApprovalQuery>).filter((k) => query[k] !== undefined).sort();
  return `${userId}\n${keys.map((k) => `${k}=${String(query[k])}`).join('&')}`;
}

/** As long as a response_url works. */
const KEEP_MS = 30 * 60_000;

export class ShownMemory {
  readonly #pages: Recent<KeptPage>;
  readonly #items: Recent<ItemsOutcome>;
  readonly #homes: Recent<HomeOutcome>;

  /** `max`: entries of each kind kept (a page of approvals is a kilobyte or two). */
  constructor(now: () => Date, max = 500) {
    this.#pages = new Recent(now, max, KEEP_MS);
    this.#items = new Recent(now, max, KEEP_MS);
    this.#homes = new Recent(now, max, KEEP_MS);
  }

  /**
   * The page of approvals last drawn for this user and query. By query, not by response_url: Slack
   * gives each click on a message a response_url of its own, so the Details a decision comes from
   * names another than the one its page was drawn with.
   */
  page(userId: string, query: ApprovalQuery): ShownPage | undefined {
    const kept = this.#pages.get(pageKey(userId, query));
    return kept && { query: kept.query, approvals: (JSON.parse(kept.rows) as ListedRow[]).map(fromListedRow) };
  }

  drewPage(userId: string, page: ShownPage): void {
    this.#pages.set(pageKey(userId, page.query), { query: page.query, rows: JSON.stringify(page.approvals.map(listedRow)) });
  }

  /** The page of a request's items this user's Details window shows. */
  items(userId: string, approvalId: string, page: number): ItemsOutcome | undefined {
    return this.#items.get(`${userId}\n${approvalId}\n${page}`);
  }

  drewItems(userId: string, approvalId: string, page: number, items: ItemsOutcome): void {
    // Only a page of items is worth keeping: a failure is asked again.
    if (items.kind === 'page') this.#items.set(`${userId}\n${approvalId}\n${page}`, items);
  }

  /** What this user's Home shows. */
  home(userId: string): HomeOutcome | undefined {
    return this.#homes.get(userId);
  }

  drewHome(userId: string, home: HomeOutcome): void {
    if (home.failure === undefined) this.#homes.set(userId, home);
  }
}
