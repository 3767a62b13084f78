/**
 * /collect messages: the confirmation the asker sees before starting everything or forcing, and
 * the result the channel sees (who started it, each run id with its collector).
 */

import type { KnownBlock } from '@slack/types';
import type { CollectRefusal } from '../collections/policy.js';
import { type AbortReport, type CollectStatus, summarizeRuns } from '../collections/runs.js';
import type { CooldownHolder } from '../collections/start.js';
import type { ConfirmReason } from '../parse/collect.js';
import type { CollectQuery } from '../service/query.js';
import { parseServiceTimestamp } from '../service/timestamps.js';
import type { CollectAttempt, WatchedRun } from '../store/types.js';
import { actions, button, code, context, fallback, header, inert, LIMITS, type Message, section } from './blocks.js';

export const CONFIRM_ACTIONS = { run: 'collect:run', cancel: 'collect:cancel' } as const;

function describeTarget(query: CollectQuery): string {
  if (query.name !== undefined && query.application !== undefined)
    return `collector *${inert(query.name, 120)}* of *${inert(query.application, 120)}*`;
  if (query.name !== undefined) return `collector *${inert(query.name, 120)}*`;
  if (query.application !== undefined) return `every collector of *${inert(query.application, 120)}*`;
  return '*every collector of every application*';
}

export function renderCollectConfirmation(query: CollectQuery, reasons: readonly ConfirmReason[], confirmationId: string): Message {
  const lines = [`:warning: Start ${describeTarget(query)}${query.force ? ', *forced*' : ''}?`];
  if (reasons.includes('all-collectors'))
    lines.push('This queues a collection run for each collector the service has, which can load the identity system for a long time.');
  if (reasons.includes('force'))
    lines.push('*Force* ignores the circuit-breaker thresholds that stop a collection when its data looks wrong.');
  const danger = reasons.includes('force');
  return {
    text: fallback(`Confirm: start ${describeTarget(query).replace(/\*/g, '')}?`),
    blocks: [
      section(lines.join('\n')),
      actions('collect:confirm', [
        button({
          actionId: CONFIRM_ACTIONS.run,
          text: danger ? 'Run, forced' : 'Run',
          value: confirmationId,
          style: danger ? 'danger' : 'primary',
        }),
        button({ actionId: CONFIRM_ACTIONS.cancel, text: 'Cancel', value: confirmationId }),
      ]),
      context('Only you can see this. Nothing starts until you click Run.'),
    ],
  };
}

/** "45s", "3m 10s", "1h 05m". */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/** A time every reader sees in their own zone; the fallback is for clients that cannot. */
export function slackTime(at: Date, format = '{time}'): string {
  return `<!date^${Math.floor(at.getTime() / 1000)}^${format}|${at.toISOString().slice(0, 16).replace('T', ' ')} UTC>`;
}

function serviceMs(value: string | undefined): number | undefined {
  const t = value ? parseServiceTimestamp(value) : undefined;
  return t === undefined ? undefined : Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
}

/** How long a run took (ended) or has been going (not yet): the service's own times when it gave both. */
function runElapsed(run: WatchedRun, startedAt: Date, now: Date): number {
  const start = serviceMs(run.startTime);
  const end = serviceMs(run.completedTime);
  if (start !== undefined && end !== undefined) return end - start;
  return (run.endedAt ?? now.getTime()) - startedAt.getTime();
}

function runLine(run: WatchedRun, startedAt: Date, now: Date): string {
  const name = run.collector ? `*${inert(run.collector, 120)}*` : '_unnamed collector_';
  const id = `run ${code(run.runId, 40)}`;
  const elapsed = formatElapsed(runElapsed(run, startedAt, now));
  switch (run.state) {
    case undefined:
      return `• ${name}: ${id}`;
    case 'New':
      return `• :hourglass: ${name}: ${id} · queued · ${elapsed}`;
    case 'Running':
      return `• :arrows_counterclockwise: ${name}: ${id} · running · ${elapsed}`;
    case 'Completed':
      return `• :white_check_mark: ${name}: ${id} · completed in ${elapsed}`;
    case 'Aborted':
      return `• :x: ${name}: ${id} · *aborted* after ${elapsed}`;
    default:
      return `• :grey_question: ${name}: ${id} · the service says “${inert(run.state, 40)}”`;
  }
}

/** The channel's message for a started collection, updated in place as its runs go New → Running → Completed / Aborted. */
export function renderCollectStatus(input: CollectStatus): Message {
  const { runs, query } = input;
  const forced = query.force ? ' (forced)' : '';
  const noun = runs.length === 1 ? 'collection' : 'collections';
  const lines = runs.map((r) => runLine(r, input.startedAt, input.now));
  // One section holds about 40 runs; a service with hundreds of collectors gets the rest summarised.
  const MAX_LISTED = 40;
  const listed = lines.slice(0, MAX_LISTED);
  if (lines.length > MAX_LISTED) listed.push(`…and ${lines.length - MAX_LISTED} more.`);
  const filters = [
    query.name !== undefined ? `name ${code(query.name, 60)}` : undefined,
    query.application !== undefined ? `application ${code(query.application, 60)}` : undefined,
  ].filter((x) => x !== undefined);
  const { completed, aborted, ended } = summarizeRuns(runs);
  const total = formatElapsed(Math.max(...runs.map((r) => runElapsed(r, input.startedAt, input.now)), 0));
  let status: string | undefined;
  switch (input.live?.kind) {
    case 'watching':
      status = `:eyes: Updating as the runs go · last checked ${slackTime(input.live.checkedAt, '{time_secs}')}`;
      break;
    case 'finished':
      status =
        aborted > 0
          ? `:warning: *All ${runs.length} ended: ${completed} completed, ${aborted} aborted* · ${total}`
          : `:tada: *All ${runs.length} completed* · ${total}`;
      break;
    case 'unavailable':
      status = `Live status is not available from this Command Service (${inert(input.live.why, 200)}); check the runs there.`;
      break;
    case 'timeout':
      status = `Stopped following the runs after ${formatElapsed(input.live.limitMs)}; check the service for how they end.`;
      break;
    case 'off':
      status =
        input.live.reason === 'unlinked'
          ? `Live status stopped: <@${input.userId}> unlinked their account.`
          : 'No live status here: invite countersign to this channel (`/invite @countersign`) to see the runs update.';
      break;
    case undefined:
      break;
  }
  const state = ended ? `: ${completed} completed, ${aborted} aborted` : '';
  return {
    text: fallback(
      `Started ${runs.length} ${noun}${forced}${state}: ${runs.map((r) => `${r.collector ?? 'collector'} (run ${r.runId}${r.state ? `, ${r.state}` : ''})`).join(', ')}`,
    ),
    blocks: [
      section(`<@${input.userId}> started ${runs.length} ${noun}${forced} at ${slackTime(input.startedAt)}:\n${listed.join('\n')}`),
      context(filters.length > 0 ? filters.join(' · ') : 'all collectors of all applications'),
      ...(status ? [context(status)] : []),
    ],
  };
}

/** The DM to the starter when a collection ended badly. */
export function renderCollectFailedDm(input: AbortReport): Message {
  const aborted = input.runs.filter((r) => r.state === 'Aborted');
  const list = aborted.map((r) => `• *${inert(r.collector ?? 'collector', 120)}*: run ${code(r.runId, 40)}`).join('\n');
  const text = `:x: Your collection in <#${input.channelId}> did not finish well: ${aborted.length} of ${input.runs.length} run${input.runs.length === 1 ? '' : 's'} aborted.\n${list}`;
  return {
    text: fallback(`Your collection in #${input.channelId}: ${aborted.length} of ${input.runs.length} runs aborted`),
    blocks: [
      section(text),
      context('A run aborts when its circuit breaker trips (the data looked wrong). Check it in the service before forcing it.'),
    ],
  };
}

const listOf = (ids: readonly string[], show: (id: string) => string) =>
  ids.length <= 8 ? ids.map(show).join(', ') : `${ids.slice(0, 8).map(show).join(', ')} and ${ids.length - 8} more`;

/** Why a collection may not start here, and where or by whom it may. Nothing reached the service. */
export function renderCollectRefused(refusal: CollectRefusal): Message {
  let text: string;
  switch (refusal.kind) {
    case 'channel':
      text = `:no_entry: Collections are not started from this channel. Use \`/collect\` in ${listOf(refusal.allowedChannels, (c) => `<#${c}>`)}.`;
      break;
    case 'user': {
      const who = [...refusal.allowedUsers.map((u) => `<@${u}>`), ...refusal.allowedUserGroups.map((g) => `<!subteam^${g}>`)];
      text = `:no_entry: You are not among those who may start collections: ${listOf(who, (x) => x)}. Ask one of them, or your Slack admins to add you.`;
      break;
    }
    case 'force':
      text = `:no_entry: Forcing a collection (past its circuit breaker) is kept for ${listOf(refusal.forceAllowedUsers, (u) => `<@${u}>`)}. Run it without \`force\`, or ask one of them.`;
      break;
  }
  return {
    text: fallback(text.replace(/:no_entry: /, '').replace(/[*`]/g, '')),
    blocks: [section(text), context('Nothing was sent to the Command Service.')],
  };
}

/** Someone started the same collection a moment ago: who, when, and, for those allowed, a way past it. */
export function renderCooldown(input: {
  query: CollectQuery;
  holder: CooldownHolder;
  cooldownMs: number;
  /** A confirmation to start it anyway; absent when the user may not. */
  overrideId: string | undefined;
}): Message {
  const { holder } = input;
  const until = new Date(holder.at.getTime() + input.cooldownMs);
  const text = `:hand: <@${holder.userId}> started ${describeTarget(input.query)} at ${slackTime(holder.at)} in <#${holder.channelId}>. The same collection can start again from ${slackTime(until)}, so that it does not run twice.`;
  const blocks: KnownBlock[] = [section(text)];
  if (input.overrideId) {
    blocks.push(
      actions('collect:cooldown', [
        button({ actionId: CONFIRM_ACTIONS.run, text: 'Start anyway', value: input.overrideId, style: 'danger' }),
        button({ actionId: CONFIRM_ACTIONS.cancel, text: 'Cancel', value: input.overrideId }),
      ]),
    );
  }
  blocks.push(context('Nothing was sent to the Command Service.'));
  return { text: fallback(`Already started a moment ago: ${describeTarget(input.query).replace(/\*/g, '')}`), blocks };
}

const OUTCOME_WORDS: Record<CollectAttempt['outcome'], string> = {
  started: 'started',
  'nothing-matched': 'matched no collector',
  refused: 'refused',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** `/collect history`: the channel's last collections, newest first, with how their runs ended. */
export function renderHistory(attempts: readonly CollectAttempt[], limit: number): Message {
  if (attempts.length === 0) {
    const text = 'No collections have been started from this channel yet.';
    return { text, blocks: [section(text)] };
  }
  const entries = attempts.map((a) => {
    const target = describeTarget(a.query) + (a.query.force ? ', forced' : '');
    const runs =
      a.runs.length > 0
        ? `: ${a.runs
            .slice(0, 6)
            .map((r) => `${inert(r.collector ?? 'collector', 60)} ${code(r.runId, 20)}${r.state ? ` ${r.state.toLowerCase()}` : ''}`)
            .join(', ')}${a.runs.length > 6 ? `, and ${a.runs.length - 6} more` : ''}`
        : '';
    const why = a.detail && a.outcome !== 'started' ? ` (${inert(a.detail, 160)})` : '';
    return `• ${slackTime(a.at, '{date_short} {time}')} <@${a.userId}> · ${target} · *${OUTCOME_WORDS[a.outcome]}*${why}${runs}`;
  });
  const sections: string[] = [];
  let current = '';
  for (const e of entries) {
    if (current.length + e.length + 1 > LIMITS.sectionText) {
      sections.push(current);
      current = '';
    }
    current = current === '' ? e : `${current}\n${e}`;
  }
  if (current !== '') sections.push(current);
  return {
    text: fallback(`The last ${attempts.length} collections in this channel`),
    blocks: [
      header(`Last ${attempts.length === 1 ? 'collection' : `${attempts.length} collections`} in this channel`),
      ...sections.slice(0, 45).map((t) => section(t)),
      context(`Newest first; at most ${limit}. \`/collect history 50\` shows more. Auditors: \`countersign audit\`.`),
    ],
  };
}

export function renderNoCollectorMatched(query: CollectQuery): Message {
  const text = `No collector matched ${describeTarget(query)}, so nothing was started. Check the collector's name as the service spells it.`;
  return { text: fallback(text.replace(/\*/g, '')), blocks: [section(text)] };
}

export function renderConfirmationClosed(outcome: 'cancelled' | 'already-used' | 'expired' | 'starting', query?: CollectQuery): Message {
  const text = {
    cancelled: 'Cancelled. Nothing was started.',
    'already-used': 'This confirmation was already used: one confirmation starts one collection.',
    expired: 'This confirmation has expired. Type the /collect command again.',
    starting: query ? `Starting ${describeTarget(query)}…` : 'Starting…',
  }[outcome];
  return { text: fallback(text.replace(/\*/g, '')), blocks: [section(text)] };
}
