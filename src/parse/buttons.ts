/**
 * What buttons and modal metadata carry back. They travel through Slack and come back as the
 * user's input, so each is read defensively and its query re-validated exactly as if typed.
 */

import type { ApprovalQuery, CollectQuery } from '../service/query.js';
import { collectQuerySchema } from '../service/query.js';
import { SERVICE_COMMANDS, type ServiceCommandName } from '../store/types.js';
import { revalidateApprovalQuery } from './approvals.js';
import { type DetailsState, decodeDetailsState } from './details.js';

/** Slack caps a button's value at 2,000 characters: anything longer did not come from us. */
export const MAX_BUTTON_VALUE = 2000;

const USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** A paging button: who asked (only they may page), and the query to issue again. */
export interface PageState {
  user: string;
  query: ApprovalQuery;
}

/** Wire form of a PageState, kept short: it must fit in a button value with the whole query. */
export interface PageStateWire {
  u: string;
  q: ApprovalQuery;
}

function json(value: string | undefined): unknown {
  if (value === undefined || value.length > MAX_BUTTON_VALUE) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

export function decodePageState(value: string | undefined): PageState | undefined {
  const parsed = json(value);
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { u, q } = parsed as { u?: unknown; q?: unknown };
  if (typeof u !== 'string' || !USER_ID.test(u)) return undefined;
  const query = revalidateApprovalQuery(q);
  return query === undefined ? undefined : { user: u, query };
}

/** What to run again once the user has linked: the query whose answer was a 401, or the details modal (by its view id) underneath. */
export type Replay =
  | { kind: 'approvals'; query: ApprovalQuery }
  | { kind: 'collect'; query: CollectQuery }
  | { kind: 'details'; state: DetailsState; viewId: string };

/** A Slack view id, as views.open answers it. */
const VIEW_ID = /^V[A-Za-z0-9]{1,60}$/;

export function decodeReplay(value: unknown): Replay | undefined {
  const r = value as { kind?: unknown; query?: unknown; state?: unknown; viewId?: unknown } | null;
  if (r?.kind === 'details') {
    const state = decodeDetailsState(r.state);
    return state !== undefined && typeof r.viewId === 'string' && VIEW_ID.test(r.viewId)
      ? { kind: 'details', state, viewId: r.viewId }
      : undefined;
  }
  if (r?.kind === 'approvals') {
    const query = revalidateApprovalQuery(r.query);
    return query === undefined ? undefined : { kind: 'approvals', query };
  }
  if (r?.kind === 'collect') {
    const query = collectQuerySchema.safeParse(r.query);
    return query.success ? { kind: 'collect', query: query.data } : undefined;
  }
  return undefined;
}

/** A "Link again" / "Link your account" button: the query to replay, or the Home tab to publish again. */
export function decodeRelinkButton(value: string | undefined): { replay: Replay | undefined; home: boolean } {
  const parsed = json(value);
  // A modal's replay rides only in the sign-in modal's own metadata, never in a message's button.
  const replay = decodeReplay(parsed);
  return { replay: replay?.kind === 'details' ? undefined : replay, home: (parsed as { home?: unknown } | undefined)?.home === true };
}

/** The sign-in modal's private metadata: which command it links, and what to do once linked. */
export interface LinkMetadata {
  command: ServiceCommandName;
  replay?: Replay | undefined;
  /** Where the replay's answer goes: the response_url of the message that carried "Link again". */
  responseUrl?: string | undefined;
  /** Opened from the App Home tab: publish it again once linked. */
  home?: boolean | undefined;
  /** Where a replayed /collect was typed: it starts there, under that channel's rules. */
  channelId?: string | undefined;
}

export function decodeLinkMetadata(text: string | undefined): LinkMetadata | undefined {
  const parsed = json(text) as
    | { command?: unknown; replay?: unknown; responseUrl?: unknown; home?: unknown; channelId?: unknown }
    | null
    | undefined;
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  if (!(SERVICE_COMMANDS as readonly unknown[]).includes(parsed.command)) return undefined;
  const metadata: LinkMetadata = { command: parsed.command as ServiceCommandName, home: parsed.home === true };
  if (typeof parsed.channelId === 'string' && /^[CGD][A-Z0-9]{2,}$/.test(parsed.channelId)) metadata.channelId = parsed.channelId;
  const replay = parsed.replay === undefined ? undefined : decodeReplay(parsed.replay);
  if (replay?.kind === 'details') metadata.replay = replay;
  else if (replay && typeof parsed.responseUrl === 'string' && /^https?:\/\//.test(parsed.responseUrl)) {
    metadata.replay = replay;
    metadata.responseUrl = parsed.responseUrl;
  }
  return metadata;
}
