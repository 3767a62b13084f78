/**
 * Which collectors a collection covers, as far as earlier runs have told: the service's answer to
 * a start names the collector of each run, so the audit trail knows, for a name, an application
 * or everything, which collectors such a start ran last time. The cooldown is kept per collector,
 * so that starting "everything" or a whole application does not start again one that was started
 * a moment ago under another name. Pure: the trail in, the coverage out.
 */

import { editDistance } from '../parse/suggest.js';
import type { CollectQuery } from '../service/query.js';
import type { CollectAttempt } from '../store/index.js';
import { cooldownTarget } from './policy.js';

/** Names as the service matches them: without regard to case or runs of spaces. */
export function fold(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, ' ');
}

export function collectorKey(name: string): string {
  return `collector=${fold(name)}`;
}

export interface Catalog {
  /** Each collector by its folded name, as the service first named it. */
  names: ReadonlyMap<string, string>;
  /** Which applications (folded) each collector (folded) was started under. */
  applications: ReadonlyMap<string, ReadonlySet<string>>;
  /** For each target (name and application, without force), the collectors its latest start ran. */
  lastRunOf: ReadonlyMap<string, readonly string[]>;
}

/** `attempts` newest first, as the store lists them. */
export function catalogOf(attempts: readonly CollectAttempt[]): Catalog {
  const names = new Map<string, string>();
  const applications = new Map<string, Set<string>>();
  const lastRunOf = new Map<string, string[]>();
  for (const a of [...attempts].reverse()) {
    const ran = a.runs.map((r) => r.collector).filter((c): c is string => c !== undefined && c !== '');
    if (ran.length === 0) continue;
    for (const name of ran) {
      // The first name recorded stays: it is what the service called it, not what someone typed later.
      if (!names.has(fold(name))) names.set(fold(name), name);
      if (a.query.application !== undefined) {
        const apps = applications.get(fold(name)) ?? new Set<string>();
        apps.add(fold(a.query.application));
        applications.set(fold(name), apps);
      }
    }
    lastRunOf.set(
      cooldownTarget({ ...a.query, force: undefined }),
      ran.map((n) => names.get(fold(n)) ?? n),
    );
  }
  return { names, applications, lastRunOf };
}

export interface Coverage {
  /** The collectors the start is known to cover, by their first recorded names; none when nothing is known yet. */
  collectors: readonly string[];
  /** True when the last start of this same target said exactly which collectors it covers, so that the rest can be started by name. */
  exact: boolean;
}

export function coverageOf(query: CollectQuery, catalog: Catalog): Coverage {
  if (query.name !== undefined) return { collectors: [catalog.names.get(fold(query.name)) ?? query.name.trim()], exact: true };
  const last = catalog.lastRunOf.get(cooldownTarget({ ...query, force: undefined }));
  if (last !== undefined) return { collectors: last, exact: true };
  const app = query.application === undefined ? undefined : fold(query.application);
  const known = [...catalog.names.entries()]
    .filter(([folded]) => app === undefined || catalog.applications.get(folded)?.has(app) === true)
    .map(([, name]) => name);
  return { collectors: known, exact: false };
}

/**
 * `AD Accounts forse` meant as `AD Accounts force`: asked only once the service has said that no
 * collector has the whole name, so a real name is never questioned. The last word must be a letter
 * or two off force (and not force itself, which a quoted name means), and the rest a collector
 * that ran here before.
 */
export function forceMisspelt(query: CollectQuery, catalog: Catalog): CollectQuery | undefined {
  const words = query.name?.trim().split(/\s+/) ?? [];
  const last = (words.at(-1) ?? '').toLowerCase();
  if (words.length < 2 || last.length < 4) return undefined;
  const off = editDistance(last, 'force');
  if (off < 1 || off > 2) return undefined;
  const known = catalog.names.get(fold(words.slice(0, -1).join(' ')));
  return known === undefined ? undefined : { ...query, name: known, force: true };
}
