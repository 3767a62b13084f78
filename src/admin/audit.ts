/**
 * `countersign audit`: the audit trail for auditors, collections or decisions, as a table in this
 * machine's zone or JSON lines in UTC; users named as Slack names them when the bot token is there.
 */

import { WebClient } from '@slack/web-api';
import { explainAttempt, outcomeWords, reasonParts, runStateWords } from '../collections/explain.js';
import { type Config, loadConfig } from '../config.js';
import { type CollectAttempt, type DecisionRecord, type DecisionRefusal, openStore, type SeenState } from '../store/index.js';
import { parseOptions, parseSince, positiveInt, TEAM_ID, USER_ID } from './args.js';
import { type CliIo, UsageError } from './io.js';
import { jsonLine, localTime, printTable } from './output.js';

/** Why an attempt ended so, in words, for a terminal: the user as `who` names them, the time in this machine's zone. */
function reasonText(attempt: CollectAttempt, timeZone: string, who: Who): string | undefined {
  const reason = explainAttempt(attempt);
  if (reason === undefined) return undefined;
  return reasonParts(reason)
    .map((part) => (typeof part === 'string' ? part : 'user' in part ? who(part.user) : localTime(part.time, timeZone)))
    .join('');
}

/** How an attempt ended, in the table's OUTCOME column: the one place that words an outcome. */
function outcomeText(attempt: CollectAttempt, timeZone: string, who: Who): string {
  const reason = reasonText(attempt, timeZone, who);
  return reason ? `${outcomeWords(attempt.outcome)}: ${reason}` : outcomeWords(attempt.outcome);
}

/** A Slack user as a line of the audit names them: "Ada Lovelace (U0ADA)" when Slack gave a name, the id alone when not. */
type Who = (userId: string) => string;

const whoOf =
  (names: ReadonlyMap<string, string>): Who =>
  (userId) => {
    const name = names.get(userId);
    return name === undefined ? userId : `${name} (${userId})`;
  };

/** The users an attempt's reason names (who confirmed, who holds the cooldown), besides who asked. */
function usersIn(attempt: CollectAttempt): string[] {
  const reason = explainAttempt(attempt);
  return reason === undefined ? [] : reasonParts(reason).flatMap((part) => (typeof part !== 'string' && 'user' in part ? [part.user] : []));
}

/** Users looked up in Slack at most, a run: users.info allows about 100 a minute. */
const MAX_NAMES = 200;

/**
 * The names Slack gives these users (users.info: the real name, else the display name), for the
 * audit's reader: the trail keeps ids only, which an auditor cannot read. Only with the bot token
 * (SLACK_BOT_TOKEN, as the app has it); one call a user, a few at once, none retried or waited
 * for. A user Slack does not name is shown by id; the note says why names are missing, if they are.
 */
async function slackNames(config: Config, userIds: readonly string[]): Promise<{ names: Map<string, string>; note?: string }> {
  const names = new Map<string, string>();
  if (config.mode === 'local') return { names, note: 'Users are shown by id: with SLACK_BOT_TOKEN set, by their name in Slack too.' };
  const quiet = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} };
  const slack = new WebClient(config.slack.botToken.reveal(), {
    ...(config.slack.apiUrl === undefined ? {} : { slackApiUrl: config.slack.apiUrl }),
    timeout: 5_000,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: quiet,
  });
  const everyone = [...new Set(userIds)];
  const pending = everyone.slice(0, MAX_NAMES);
  const failures = new Set<string>();
  const worker = async () => {
    for (let id = pending.shift(); id !== undefined; id = pending.shift()) {
      try {
        const { user } = await slack.users.info({ user: id });
        const name = user?.real_name || user?.profile?.real_name || user?.profile?.display_name || user?.name;
        if (name) names.set(id, name);
      } catch (error) {
        const { code, data } = error as { code?: string; data?: { error?: string } };
        // A user Slack does not know (gone from the workspace) is an answer; any other failure would
        // meet every call alike (a refused token, no users:read, no network, a rate limit): stop asking.
        if (data?.error === 'user_not_found') continue;
        failures.add(code === 'slack_webapi_rate_limited_error' ? 'rate limited' : (data?.error ?? 'no answer'));
        pending.length = 0;
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const some = names.size > 0 ? 'Some users are shown by id only' : 'Users are shown by id';
  if (failures.size > 0) return { names, note: `${some}: Slack did not name them (users.info: ${[...failures].join(', ')}).` };
  if (everyone.length > MAX_NAMES)
    return { names, note: `Users past the first ${MAX_NAMES} are shown by id only: Slack allows about 100 users.info calls a minute.` };
  return { names };
}

export async function auditCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions('audit', args, {
    since: { type: 'string' },
    channel: { type: 'string' },
    team: { type: 'string' },
    user: { type: 'string' },
    kind: { type: 'string', default: 'collections' },
    limit: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (values.kind !== 'collections' && values.kind !== 'decisions')
    throw new UsageError(`--kind takes collections or decisions, not '${values.kind}'`);
  if (values.user !== undefined && !USER_ID.test(values.user))
    throw new UsageError(`--user takes a Slack user id such as U012ABCDEF, not '${values.user}'`);
  if (values.kind === 'decisions' && values.channel !== undefined)
    throw new UsageError('--channel is for collections: decisions are made in a private window, in no channel');
  const since = values.since === undefined ? undefined : parseSince(values.since, io.now());
  if (values.channel !== undefined && !/^[CGD][A-Z0-9]{2,}$/.test(values.channel))
    throw new UsageError(`--channel takes a Slack channel id such as C012ABCDEF, not '${values.channel}'`);
  if (values.team !== undefined && !TEAM_ID.test(values.team))
    throw new UsageError(`--team takes a Slack team id such as T012ABCDEF, not '${values.team}'`);
  const limit = positiveInt(values.limit, '--limit', 1, 100_000) ?? 10_000;

  const config = loadConfig(io.env);
  const store = await openStore(config, () => io.now());
  try {
    if (values.kind === 'decisions') {
      // Read as the latest active; listed by when each began, as the WHEN column says (ids break ties in the order written).
      const decisions = (await store.listDecisions({ limit, since, teamId: values.team, userId: values.user }))
        .reverse()
        .sort((a, b) => a.at.getTime() - b.at.getTime());
      const named = await slackNames(
        config,
        decisions.flatMap((d) => [d.userId, ...(d.refusal && 'userId' in d.refusal ? [d.refusal.userId] : [])]),
      );
      return printDecisions(io, decisions, values.json, named);
    }
    const attempts = (
      await store.listCollectAttempts({
        limit,
        since,
        channelId: values.channel,
        teamId: values.team,
        userId: values.user,
      })
    ).reverse();
    const { names, note } = await slackNames(
      config,
      attempts.flatMap((a) => [a.userId, ...usersIn(a)]),
    );
    const who = whoOf(names);
    if (values.json) {
      for (const a of attempts) {
        const line = {
          id: a.id,
          at: a.at.toISOString(),
          team: a.teamId,
          channel: a.channelId,
          user: a.userId,
          userName: names.get(a.userId) ?? null,
          name: a.query.name ?? null,
          application: a.query.application ?? null,
          force: a.query.force === true,
          outcome: a.outcome,
          outcomeWords: outcomeWords(a.outcome),
          reason: reasonText(a, 'UTC', who) ?? null,
          // The reason's fields as the trail holds them, and every step with its time.
          detail: a.reason ?? null,
          steps: a.steps.map((s) => ({ step: s.step, at: s.at.toISOString() })),
          runs: a.runs.map((r) => ({ runId: r.runId, collector: r.collector ?? null, state: r.state ?? null })),
          liveStatus: a.watch ? (a.watch.done ? (a.watch.note ?? 'done') : 'watching') : null,
        };
        io.stdout.write(jsonLine(line));
      }
      return 0;
    }
    if (attempts.length === 0) {
      io.stderr.write('No collection attempts recorded for that period.\n');
      return 0;
    }
    printTable(
      io,
      [['WHEN', 'TEAM', 'CHANNEL', 'WHO', 'COLLECTOR', 'APPLICATION', 'FORCE', 'OUTCOME', 'RUNS']].concat(
        attempts.map((a) => {
          return [
            localTime(a.at, io.timeZone),
            a.teamId,
            a.channelId,
            who(a.userId),
            a.query.name ?? 'every collector',
            a.query.application ?? (a.query.name === undefined ? 'every application' : '-'),
            a.query.force ? 'yes' : '-',
            outcomeText(a, io.timeZone, who),
            a.runs.map((r) => `${r.collector ?? 'run'} ${r.runId} ${runStateWords(r.state) ?? 'started'}`).join(', '),
          ];
        }),
      ),
    );
    io.stderr.write(`Times are in this machine's zone (${io.timeZone}); --json gives them in UTC.\n`);
    if (note !== undefined) io.stderr.write(`${note}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * A refusal of countersign's token, or of the user's, in the words the collections' trail uses: the
 * service refusing countersign's own sign-in (the trusted mode), a command it does not let the user
 * run, a user it does not know, a token refused. Undefined for any other error.
 */
function refusedWords(error: string, message: string): string | undefined {
  if (error !== 'invalid-token' && error !== 'app-sign-in') return undefined;
  return reasonParts({ kind: 'service', error, message })
    .filter((part): part is string => typeof part === 'string')
    .join('');
}

/** Why a decision was turned away before it was sent, in words for a terminal. */
function refusalText(r: DecisionRefusal, timeZone: string, who: Who): string {
  switch (r.kind) {
    case 'not-linked':
      return 'their account was not linked';
    case 'not-visible':
      return 'the service would not show it to them';
    case 'not-pending':
      return `the service showed it completed already${r.state ? ` (as ${r.state})` : ''}`;
    case 'line-items':
      return 'its items are decided one by one, in the service';
    case 'action-not-listed':
      return `the service did not list that action (it listed ${r.listed.join(', ') || 'none'})`;
    case 'already-decided':
      return `decided from Slack already: ${r.action} by ${who(r.userId)} ${localTime(r.at, timeZone)}`;
    case 'held':
      return `${who(r.userId)}'s decision (${r.action}) was ${r.state === 'sending' ? 'being sent' : 'unsettled'} until ${localTime(r.until, timeZone)}`;
    case 'not-offered':
      return `the service does not offer ${r.command}`;
    case 'check-failed': {
      const words = refusedWords(r.error, r.message);
      return `it could not be checked with the service first${words === undefined ? ` (${r.error})` : `: ${words}`}`;
    }
    case 'not-allowed':
      return 'the service does not let them act on it';
    case 'not-theirs':
      return 'it was not on their own pending list';
    case 'sign-in-failed': {
      const words = refusedWords(r.error, r.message);
      return `countersign could not get a token to send it with${words === undefined ? ` (${r.error})` : `: ${words}`}`;
    }
    case 'hold-lost':
      return 'its hold gave way while the approval was checked';
    case 'stopping':
      return 'countersign was stopping';
  }
}

/** What was found afterwards of a decision no answer settled. */
function foundText(f: NonNullable<DecisionRecord['found']>, timeZone: string): string {
  const when = `found ${localTime(f.at, timeZone)}${f.by === 'next-decision' ? ' when the approval was next decided' : ''}`;
  switch (f.found) {
    case 'completed':
      return `${when}: the service shows it ${f.seen?.state || 'completed'}${f.seen?.completedBy ? ` by ${f.seen.completedBy}` : ''}`;
    case 'pending':
      return `${when}: the service still shows it waiting, so it was not decided`;
    case 'not-sent':
      return `${when}: it ended before it was sent`;
    case 'unreadable':
      return `${when}: the service could not be read (${f.why ?? 'unknown'}); check it there`;
  }
}

/** How a decision stands, in the table's OUTCOME column: the one place that words a decision's outcome. */
function decisionOutcomeText(d: DecisionRecord, timeZone: string, who: Who): string {
  const seen = (s: SeenState | undefined) =>
    s === undefined
      ? ''
      : s.pending
        ? '; the service then showed it still waiting'
        : `; the service then showed it ${s.state || 'completed'}`;
  if (d.outcome === 'refused' && d.refusal !== undefined) return `refused: ${refusalText(d.refusal, timeZone, who)}; nothing sent`;
  const answered = answerText(d, seen);
  if (d.found !== undefined) return `${answered}; ${foundText(d.found, timeZone)}`;
  return d.unsettled ? `${answered}; UNSETTLED: the service will be read again` : answered;
}

function answerText(d: DecisionRecord, seen: (s: SeenState | undefined) => string): string {
  const a = d.answer;
  switch (a?.result) {
    case 'done':
      return a.after === undefined ? `done${seen(a.seen)}` : `done: no answer that said (${a.after})${seen(a.seen)}`;
    case 'refused': {
      const words = refusedWords(a.error, a.message);
      if (words !== undefined) return `not done: ${words}`;
      return `not done: the service refused it (${a.error}${a.status === undefined ? '' : ` ${a.status}`})${a.message ? `: “${a.message}”` : ''}`;
    }
    case 'not-sent':
      return 'not done: it never reached the service';
    case 'unknown':
      return a.status === undefined
        ? `unknown: no answer that says (${a.error})${seen(a.seen)}`
        : `unknown: the service answered ${a.status}${a.says ? ` saying “${a.says}”` : ''}, but did not show it completed as sent${seen(a.seen)}`;
    default:
      return (
        { asked: 'asked, not confirmed', confirmed: 'confirmed, not sent', sent: 'sent, no answer recorded' }[d.outcome as string] ??
        d.outcome
      );
  }
}

function printDecisions(
  io: CliIo,
  decisions: readonly DecisionRecord[],
  json: boolean,
  { names, note }: { names: ReadonlyMap<string, string>; note?: string | undefined },
): number {
  const who = whoOf(names);
  if (json) {
    for (const d of decisions)
      io.stdout.write(
        jsonLine({
          kind: 'decision',
          id: d.id,
          at: d.at.toISOString(),
          lastAt: d.lastAt.toISOString(),
          team: d.teamId,
          user: d.userId,
          userName: names.get(d.userId) ?? null,
          approval: d.approvalId,
          action: d.action,
          comment: d.comment ?? null,
          outcome: d.outcome,
          reason: decisionOutcomeText(d, 'UTC', who),
          detail: d.refusal ?? d.answer ?? null,
          found: d.found === undefined ? null : { ...d.found, at: d.found.at.toISOString() },
          unsettled: d.unsettled,
          steps: d.steps.map((s) => ({ step: s.step, at: s.at.toISOString(), request: s.requestId ?? null })),
        }),
      );
    return 0;
  }
  if (decisions.length === 0) {
    io.stderr.write('No decisions recorded for that period.\n');
    return 0;
  }
  printTable(
    io,
    [['WHEN', 'TEAM', 'WHO', 'APPROVAL', 'ACTION', 'OUTCOME', 'COMMENT']].concat(
      decisions.map((d) => [
        localTime(d.at, io.timeZone),
        d.teamId,
        who(d.userId),
        d.approvalId,
        d.action,
        decisionOutcomeText(d, io.timeZone, who),
        d.comment === undefined ? '-' : d.comment === '' ? '(none)' : d.comment,
      ]),
    ),
  );
  io.stderr.write(`Times are in this machine's zone (${io.timeZone}); --json gives them in UTC, with every step.\n`);
  if (note !== undefined) io.stderr.write(`${note}\n`);
  return 0;
}
