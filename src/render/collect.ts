/**
 * /collect messages: the confirmation the asker sees before starting everything or forcing, the
 * channel's message that follows the runs, refusals, the cooldown notice, history. Collector and
 * application names come from the asker or the service, so they are rich text, shown exactly.
 */

import type { KnownBlock } from '@slack/types';
import type { AttemptReason } from '../collections/explain.js';
import { explainAttempt, outcomeWords, reasonParts, runStateWords } from '../collections/explain.js';
import type { CollectRefusal } from '../collections/policy.js';
import { type AbortReport, type CollectStatus, summarizeRuns } from '../collections/runs.js';
import type { Held } from '../collections/start-plan.js';
import type { ConfirmReason } from '../parse/collect.js';
import type { CollectQuery } from '../service/query.js';
import type { CollectAttempt, WatchedRun } from '../store/types.js';
import { parseServiceTimestamp } from '../time/timestamps.js';
import { instantOf } from '../time/zones.js';
import { actions, button, context, fallback, header, LIMITS, type Message, section } from './blocks.js';
import {
  bold,
  channel,
  code,
  emoji,
  italic,
  oneLine,
  type Paragraph,
  plainOf,
  type Run,
  richMessage,
  richText,
  user,
  when,
} from './rich.js';

export const CONFIRM_ACTIONS = { run: 'collect:run', cancel: 'collect:cancel' } as const;

/** "collector AD Accounts of Active Directory", with the names in bold. */
function target(query: CollectQuery): Run[] {
  const name = query.name === undefined ? undefined : bold(oneLine(query.name, 120));
  const application = query.application === undefined ? undefined : bold(oneLine(query.application, 120));
  if (name && application) return ['collector ', name, ' of ', application];
  if (name) return ['collector ', name];
  if (application) return ['every collector of ', application];
  return [bold('every collector of every application')];
}

export function renderCollectConfirmation(query: CollectQuery, reasons: readonly ConfirmReason[], confirmationId: string): Message {
  const paragraphs: Paragraph[] = [[emoji('warning'), ' Start ', ...target(query), ...(query.force ? [', ', bold('forced')] : []), '?']];
  if (reasons.includes('all-collectors'))
    paragraphs.push([
      'This queues a collection run for each collector the service has, which can load the identity system for a long time.',
    ]);
  if (reasons.includes('force'))
    paragraphs.push([bold('Force'), ' ignores the circuit-breaker thresholds that stop a collection when its data looks wrong.']);
  const danger = reasons.includes('force');
  const run = danger ? 'Run, forced' : 'Run';
  return richMessage(
    paragraphs,
    actions('collect:confirm', [
      button({ actionId: CONFIRM_ACTIONS.run, text: run, value: confirmationId, style: danger ? 'danger' : 'primary' }),
      button({ actionId: CONFIRM_ACTIONS.cancel, text: 'Cancel', value: confirmationId }),
    ]),
    // The button by its very words: "click Run" above a button reading "Run, forced" sends one looking for another.
    context(`Only you can see this. Nothing starts until you click *${run}*.`),
  );
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

/** A run's time as an instant where the service's zone is known; as written otherwise, which is right but across a change of clocks. */
function serviceMs(value: string | undefined, serviceZone: string | undefined): number | undefined {
  const t = value ? parseServiceTimestamp(value) : undefined;
  if (t === undefined) return undefined;
  return serviceZone === undefined ? Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) : instantOf(t, serviceZone).getTime();
}

/** How long a run took (ended) or has been going (not yet): the service's own times when it gave both. */
function runElapsed(run: WatchedRun, startedAt: Date, now: Date, serviceZone?: string): number {
  const start = serviceMs(run.startTime, serviceZone);
  const end = serviceMs(run.completedTime, serviceZone);
  if (start !== undefined && end !== undefined) return end - start;
  return (run.endedAt ?? now.getTime()) - startedAt.getTime();
}

function runLine(run: WatchedRun, startedAt: Date, now: Date, serviceZone: string | undefined): Paragraph {
  const name = run.collector ? bold(oneLine(run.collector, 120)) : italic('unnamed collector');
  const id: Run[] = ['run ', code(oneLine(run.runId, 40))];
  const elapsed = formatElapsed(runElapsed(run, startedAt, now, serviceZone));
  switch (run.state) {
    case undefined:
      return ['• ', name, ': ', ...id];
    case 'New':
      return ['• ', emoji('hourglass'), ' ', name, ': ', ...id, ` · queued · ${elapsed}`];
    case 'Running':
      return ['• ', emoji('arrows_counterclockwise'), ' ', name, ': ', ...id, ` · running · ${elapsed}`];
    case 'Completed':
      return ['• ', emoji('white_check_mark'), ' ', name, ': ', ...id, ` · completed in ${elapsed}`];
    case 'Aborted':
      return ['• ', emoji('x'), ' ', name, ': ', ...id, ' · ', bold('aborted'), ` after ${elapsed}`];
    default:
      return ['• ', emoji('grey_question'), ' ', name, ': ', ...id, ` · the service says “${oneLine(run.state, 40)}”`];
  }
}

/** One rich text block holds about 40 runs; a service with hundreds of collectors gets the rest summarised. */
const MAX_LISTED = 40;

/**
 * The channel's message for a started collection, updated in place as its runs go New → Running →
 * Completed / Aborted. `serviceZone` (COMMAND_SERVICE_TIME_ZONE) makes a run's length right across a change of clocks.
 */
export function renderCollectStatus(input: CollectStatus, serviceZone?: string): Message {
  const { runs, query } = input;
  const forced = query.force ? ' (forced)' : '';
  const noun = runs.length === 1 ? 'collection' : 'collections';
  const listed = runs.slice(0, MAX_LISTED).map((r) => runLine(r, input.startedAt, input.now, serviceZone));
  if (runs.length > MAX_LISTED) listed.push([`…and ${runs.length - MAX_LISTED} more.`]);
  const { completed, aborted, ended } = summarizeRuns(runs);
  const total = formatElapsed(Math.max(...runs.map((r) => runElapsed(r, input.startedAt, input.now, serviceZone)), 0));
  const all = runs.length === 1 ? 'The collection' : `All ${runs.length}`;
  let status: Paragraph | undefined;
  switch (input.live?.kind) {
    case 'watching':
      status = [emoji('eyes'), ' Updating as the runs go · last checked ', when(input.live.checkedAt, '{time_secs}')];
      break;
    case 'finished':
      status =
        aborted > 0
          ? [emoji('warning'), ' ', bold(`${all} ended: ${completed} completed, ${aborted} aborted`), ` · ${total}`]
          : [emoji('tada'), ' ', bold(`${all} completed`), ` · ${total}`];
      break;
    case 'unavailable':
      status = [`Live status is not available from this Command Service (${oneLine(input.live.why, 200)}); check the runs there.`];
      break;
    case 'timeout':
      status = [`Stopped following the runs after ${formatElapsed(input.live.limitMs)}; check the service for how they end.`];
      break;
    case 'off':
      status =
        input.live.reason === 'unlinked'
          ? ['Live status stopped: ', user(input.userId), ' unlinked their account.']
          : input.live.reason === 'slack-slow'
            ? [
                'Slack did not take the live message in time, so this one will not update; if the live message appears later, it updates there.',
              ]
            : ['No live status here: invite countersign to this channel (', code('/invite @countersign'), ') to see the runs update.'];
      break;
    case undefined:
      break;
  }
  const filters = [
    query.name !== undefined ? `name “${oneLine(query.name, 60)}”` : undefined,
    query.application !== undefined ? `application “${oneLine(query.application, 60)}”` : undefined,
  ].filter((x) => x !== undefined);
  const opening: Paragraph = [user(input.userId), ` started ${runs.length} ${noun}${forced} at `, when(input.startedAt), ':'];
  const paragraphs: Paragraph[] = [opening, ...listed];
  const details: Paragraph[] = [
    [filters.length > 0 ? filters.join(' · ') : 'all collectors of all applications'],
    ...(status ? [status] : []),
  ];
  // The notification ends as the message does: "All 7 ended: 6 completed, 1 aborted", "The collection completed".
  const state = !ended ? '' : aborted > 0 ? ` ${all} ended: ${completed} completed, ${aborted} aborted.` : ` ${all} completed.`;
  const runList = runs.map((r) => {
    const state = runStateWords(r.state);
    return `${oneLine(r.collector ?? 'unnamed collector', 60)} (run ${oneLine(r.runId, 40)}${state ? `, ${oneLine(state, 40)}` : ''})`;
  });
  return {
    text: plainOf([[...opening, ' ', `${runList.join(', ')}.${state}`]]),
    blocks: [richText(paragraphs), richText(details)],
  };
}

/**
 * The DM to the starter when a run of their collection aborted: what the service said (the run's
 * state, Aborted, and nothing of why: its status has no reason), which runs, and what they can do.
 * No cause is claimed that the service did not give.
 */
export function renderCollectFailedDm(input: AbortReport): Message {
  const aborted = input.runs.filter((r) => r.state === 'Aborted');
  const which =
    input.runs.length === 1
      ? 'its run has ended'
      : `${aborted.length} of its ${input.runs.length} runs ${aborted.length === 1 ? 'has' : 'have'} ended`;
  const paragraphs: Paragraph[] = [
    [emoji('x'), ' Your collection in ', channel(input.channelId), `: the Command Service says ${which} `, bold('Aborted'), '.'],
    ...aborted.map((r): Paragraph => ['• ', bold(oneLine(r.collector ?? 'unnamed collector', 120)), ': run ', code(oneLine(r.runId, 40))]),
  ];
  return richMessage(
    paragraphs,
    context(
      'The service does not say why a run aborted. Check it in the service before starting it again: an aborted run does not hold the cooldown, so it can start at once.',
    ),
  );
}

const listOf = (ids: readonly string[], show: (id: string) => string) =>
  ids.length <= 8 ? ids.map(show).join(', ') : `${ids.slice(0, 8).map(show).join(', ')} and ${ids.length - 8} more`;

/** Why a collection may not start here, and where or by whom it may. Nothing reached the service. The ids are the configuration's, checked at start. */
export function renderCollectRefused(refusal: CollectRefusal): Message {
  let text: string;
  let plain: string;
  switch (refusal.kind) {
    case 'channel':
      text = `:no_entry: Collections are not started from this channel. Use \`/collect\` in ${listOf(refusal.allowedChannels, (c) => `<#${c}>`)}.`;
      plain = `Collections are not started from this channel. Use /collect in ${listOf(refusal.allowedChannels, (c) => `<#${c}>`)}.`;
      break;
    case 'user': {
      const who = [...refusal.allowedUsers.map((u) => `<@${u}>`), ...refusal.allowedUserGroups.map((g) => `<!subteam^${g}>`)];
      text = `:no_entry: You are not among those who may start collections: ${listOf(who, (x) => x)}. Ask one of them, or your Slack admins to add you.`;
      plain = text.replace(':no_entry: ', '');
      break;
    }
    case 'force':
      text = `:no_entry: Forcing a collection (past its circuit breaker) is kept for ${listOf(refusal.forceAllowedUsers, (u) => `<@${u}>`)}. Run it without \`force\`, or ask one of them.`;
      plain = text.replace(':no_entry: ', '').replace(/`/g, '');
      break;
  }
  return {
    text: `${plain} Nothing was sent to the Command Service.`,
    blocks: [section(text), context('Nothing was sent to the Command Service.')],
  };
}

/** The cooldown notice's button, as it reads and as the notice names it. */
const startAnyway = (query: CollectQuery) => (query.force ? 'Start anyway, forced' : 'Start anyway');

/** When what was started a moment ago may start again, to the minute: the latest of the holders' ends. */
function againFrom(held: readonly Held[], cooldownMs: number): Date {
  return new Date(Math.max(...held.map((h) => h.holder.at.getTime())) + cooldownMs);
}

/** Who started it, as the asker reads it: "you" when it was they, a mention otherwise. */
function starter(userId: string, askerId: string | undefined, capital: boolean): Run {
  if (userId !== askerId) return user(userId);
  return capital ? 'You' : 'you';
}

/** One line per collector started a moment ago: which, by whom, when, where. */
function heldLines(held: readonly Held[], query?: CollectQuery, askerId?: string): Paragraph[] {
  return held.map(
    (h): Paragraph => [
      '• ',
      ...(h.collector !== undefined ? [bold(oneLine(h.collector, 120))] : query !== undefined ? target(query) : ['all of it']),
      ': ',
      starter(h.holder.userId, askerId, false),
      ' started it at ',
      when(h.holder.at),
      ' in ',
      channel(h.holder.channelId),
    ],
  );
}

/** Two cooldowns taken by one start. */
function sameStart(a: Held, b: Held): boolean {
  return (
    a.holder.userId === b.holder.userId && a.holder.channelId === b.holder.channelId && a.holder.at.getTime() === b.holder.at.getTime()
  );
}

/** "*AD Accounts*", "*AD Accounts* and *HR Feed*", "*A*, *B* and *C*". */
function namesOf(names: readonly string[]): Run[] {
  return names.flatMap((name, i): Run[] => [...(i === 0 ? [] : [i === names.length - 1 ? ' and ' : ', ']), bold(oneLine(name, 120))]);
}

/**
 * Part of a whole application (or of everything) is held and its other collectors are not known, so
 * none could start without running the held ones again: what is blocked, until when, and what the
 * asker can do now, in a sentence or two. Starting the others by name is not advised: nothing here
 * could list them.
 */
function unknownRestParagraphs(query: CollectQuery, held: readonly Held[], again: Date, override: boolean, askerId?: string): Paragraph[] {
  const names = namesOf(held.map((h) => h.collector ?? ''));
  const one = held.length === 1 ? (held[0] as Held) : undefined;
  const whom = one === undefined ? 'them' : 'it';
  const opening: Paragraph = [
    emoji('hand'),
    ' Nothing was started: ',
    ...(one === undefined
      ? [...names, ' were started a moment ago, and starting ', ...target(query), ` now would run ${whom} again.`]
      : [
          starter(one.holder.userId, askerId, false),
          ' started ',
          ...names,
          ' at ',
          when(one.holder.at),
          ' in ',
          channel(one.holder.channelId),
          ', and starting ',
          ...target(query),
          ` now would run ${whom} again.`,
        ]),
  ];
  return [
    opening,
    ...(one === undefined ? heldLines(held, query, askerId) : []),
    [
      'You can start ',
      ...target(query),
      ' from ',
      when(again),
      ...(override ? [', or now with ', bold(startAnyway(query)), ', which runs ', ...names, ' a second time.'] : ['.']),
    ],
  ];
}

/** Someone started the same collection, or part of it, a moment ago: who, when, and, for those allowed, a way past it. */
export function renderCooldown(input: {
  query: CollectQuery;
  held: readonly Held[];
  cooldownMs: number;
  /** A confirmation to start it anyway; absent when the user may not. */
  overrideId: string | undefined;
  /** Part of the target is held and its other collectors are not known, so none could start by name. */
  unknownRest?: boolean | undefined;
  /** Who reads it: where they started it themselves, the notice says "you". */
  askerId?: string | undefined;
}): Message {
  const { held, query, askerId } = input;
  const only = held.length === 1 ? (held[0] as Held) : undefined;
  // What the holder started, in their terms: the very target asked for, or one collector of it.
  const started = (h: Held): Run[] => (h.collector === undefined ? target(query) : ['collector ', bold(oneLine(h.collector, 120))]);
  const by = (h: Held, capital: boolean): Run[] => [
    starter(h.holder.userId, askerId, capital),
    ' started ',
    ...started(h),
    ' at ',
    when(h.holder.at),
    ' in ',
    channel(h.holder.channelId),
  ];
  const againAt = againFrom(held, input.cooldownMs);
  const again: Paragraph = ['The same collection can start again from ', when(againAt), ', so that it does not run twice.'];
  // Someone started this very target (or, for a name, this collector): that is the news; its own collectors go without saying.
  const whole = held.find((h) => h.collector === undefined) ?? (query.name !== undefined ? only : undefined);
  const unknown = input.unknownRest === true && whole === undefined;
  let paragraphs: Paragraph[];
  if (unknown) {
    paragraphs = unknownRestParagraphs(query, held, againAt, input.overrideId !== undefined, askerId);
  } else if (whole) {
    const others = held.filter((h) => h !== whole && h.collector !== undefined && !sameStart(h, whole));
    paragraphs = [
      [emoji('hand'), ' ', ...by(whole, true), '.'],
      ...(others.length > 0 ? [['Also started a moment ago:'], ...heldLines(others, query, askerId)] : []),
      again,
    ];
  } else if (only) {
    paragraphs = [
      [emoji('hand'), ' Part of ', ...target(query), ' was started a moment ago: ', ...by(only, false), '.'],
      ['It can start again from ', when(againAt), ', so that ', bold(oneLine(only.collector ?? '', 120)), ' does not run twice.'],
    ];
  } else {
    paragraphs = [
      [emoji('hand'), ' Part of ', ...target(query), ' was started a moment ago:'],
      ...heldLines(held, query, askerId),
      ['It can all start again from ', when(againAt), ', so that none of them runs twice.'],
    ];
  }
  const after: KnownBlock[] = [];
  if (input.overrideId) {
    after.push(
      actions('collect:cooldown', [
        button({
          actionId: CONFIRM_ACTIONS.run,
          text: startAnyway(input.query),
          value: input.overrideId,
          style: 'danger',
        }),
        button({ actionId: CONFIRM_ACTIONS.cancel, text: 'Cancel', value: input.overrideId }),
      ]),
    );
  }
  after.push(context('Nothing was sent to the Command Service.'));
  return richMessage(paragraphs, ...after);
}

/** To the asker: the collectors of the target that were left out because they were started a moment ago. */
export function renderLeftOut(held: readonly Held[], cooldownMs: number, askerId?: string): Message {
  return richMessage([
    [emoji('information_source'), ` Left out, so that ${held.length === 1 ? 'it does' : 'they do'} not run twice:`],
    ...heldLines(held, undefined, askerId),
    ['They can start again from ', when(againFrom(held, cooldownMs)), '.'],
  ]);
}

/**
 * To the asker: collectors the service ran again though started a moment ago, since nothing said
 * beforehand that the target covers them.
 */
export function renderRanAgain(ranAgain: readonly Held[], query: CollectQuery, askerId?: string): Message {
  const one = ranAgain.length === 1;
  const why: Run[] =
    query.application !== undefined
      ? ['countersign did not know that ', bold(oneLine(query.application, 120)), ` has ${one ? 'this collector' : 'these collectors'}:`]
      : [`countersign did not know that this covers ${one ? 'it' : 'them'}:`];
  return richMessage([
    [emoji('warning'), ' Started again within the cooldown: ', ...why],
    ...heldLines(ranAgain, query, askerId),
    [
      'The service names the collector of each run but not its application, so countersign learns which collectors an application has from a start of the whole application, such as this one. It knows now, and leaves them out next time.',
    ],
  ]);
}

/** Why an attempt ended so, in words; who and when as a mention and a date each reader sees in their own zone. */
function reasonRuns(reason: AttemptReason): Run[] {
  return reasonParts(reason).map(
    (part): Run =>
      typeof part === 'string' ? oneLine(part, 200) : 'user' in part ? user(part.user) : when(part.time, '{date_short_pretty} {time}'),
  );
}

/** "<when> · @Oscar started collector AD Accounts: AD Accounts `41` queued", or "… asked for … · refused: why". */
function historyLine(a: CollectAttempt): Paragraph {
  const started = a.outcome === 'started';
  const line: Run[] = [
    '• ',
    when(a.at, '{date_short_pretty} {time}'),
    ' · ',
    user(a.userId),
    started ? ' started ' : ' asked for ',
    ...target(a.query),
  ];
  if (a.query.force) line.push(', forced');
  if (!started) line.push(' · ', bold(oneLine(outcomeWords(String(a.outcome)), 40)));
  const reason = started ? undefined : explainAttempt(a);
  if (reason) line.push(': ', ...reasonRuns(reason));
  if (a.runs.length > 0) {
    line.push(': ');
    a.runs.slice(0, 6).forEach((r, i) => {
      if (i > 0) line.push(', ');
      const state = runStateWords(r.state);
      line.push(`${oneLine(r.collector ?? 'unnamed collector', 60)} `, code(oneLine(r.runId, 20)), state ? ` ${oneLine(state, 40)}` : '');
    });
    if (a.runs.length > 6) line.push(`, and ${a.runs.length - 6} more`);
  }
  return line;
}

/** `/collect history`: the channel's last collections, newest first, with how their runs ended. */
export function renderHistory(attempts: readonly CollectAttempt[], limit: number): Message {
  if (attempts.length === 0) {
    const text = 'No collections have been started from this channel yet.';
    return { text, blocks: [section(text)] };
  }
  // Several lines to a rich text block, within its budget, so that 50 attempts fit one message.
  const groups: Paragraph[][] = [];
  let size = 0;
  for (const line of attempts.map(historyLine)) {
    const cost = plainOf([line]).length + 60;
    const current = groups.at(-1);
    if (current === undefined || size + cost > LIMITS.richTextChars) {
      groups.push([line]);
      size = cost;
    } else {
      current.push(line);
      size += cost;
    }
  }
  const title = `Last ${attempts.length === 1 ? 'collection' : `${attempts.length} collections`} in this channel`;
  return {
    text: fallback(`${title}, newest first.`),
    blocks: [
      header(title),
      ...groups.slice(0, LIMITS.blocksPerMessage - 2).map((g) => richText(g)),
      context(`Newest first; at most ${limit}. \`/collect history 50\` shows more. Auditors: \`countersign audit\`.`),
    ],
  };
}

/** Nothing matched: say what was asked for plainly, and offer the collectors earlier runs here reported. */
export function renderNoCollectorMatched(input: {
  query: CollectQuery;
  known: readonly string[];
  meant: string | undefined;
  /** The command meant, when the name's last word looks like a misspelt force. */
  retry?: string | undefined;
}): Message {
  const { query, known } = input;
  const asked: Run[] =
    query.name !== undefined
      ? [
          'No collector is called ',
          bold(oneLine(query.name, 120)),
          ...(query.application ? [' in ', bold(oneLine(query.application, 120))] : []),
        ]
      : ['No collector matched ', ...target(query)];
  const paragraphs: Paragraph[] = [[...asked, ', so nothing was started.']];
  if (input.retry) paragraphs.push(['Did you mean ', code(oneLine(input.retry, 400)), '?']);
  else if (input.meant) paragraphs.push(['Did you mean ', bold(oneLine(input.meant, 120)), '?']);
  if (known.length > 0) {
    const shown = known.slice(0, 12);
    const list: Run[] = shown.flatMap((name, i): Run[] => (i > 0 ? [', ', code(oneLine(name, 60))] : [code(oneLine(name, 60))]));
    paragraphs.push([
      'Collectors started here before: ',
      ...list,
      known.length > shown.length ? `, and ${known.length - shown.length} more.` : '.',
    ]);
  } else {
    paragraphs.push(["Check the collector's name as the service spells it; the channel's message names each collector once one has run."]);
  }
  return richMessage(paragraphs);
}

export function renderConfirmationClosed(outcome: 'cancelled' | 'already-used' | 'expired' | 'starting', query?: CollectQuery): Message {
  if (outcome === 'starting') return richMessage([['Starting ', ...(query ? target(query) : ['the collection']), '…']]);
  const text = {
    cancelled: 'Cancelled. Nothing was started.',
    'already-used': 'This confirmation was already used: one confirmation starts one collection.',
    expired: 'This confirmation has expired. Type the /collect command again.',
  }[outcome];
  return { text: fallback(text), blocks: [section(text)] };
}
