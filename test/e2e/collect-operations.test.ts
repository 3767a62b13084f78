/**
 * /collect for operations, end to end: allow-lists (channel, user, user group, force), the
 * cooldown and "Start anyway", the audit trail and /collect history, and live run status updated
 * in place on a clock the test moves, through a restart and against a service without getRunStatus.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRM_ACTIONS } from '../../src/render/collect.js';
import { TestClock } from '../helpers/clock.js';
import { buttonsOf, textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness, TEAM } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';
import { visible } from '../helpers/visible.js';

const clock = new TestClock(new Date());
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    // Channel writes spaced 1 s apart, as Slack asks, would make these tests wait seconds for nothing.
    perChannelMs: 10,
    now: clock.now,
    reference: { now: clock.now, runTimings: { queuedMs: 60_000, runningMs: 5 * 60_000 } },
    env: {
      COLLECT_ALLOWED_CHANNELS: 'C0OPS,C0SEC',
      COLLECT_ALLOWED_USERS: 'UGRACE',
      COLLECT_ALLOWED_USERGROUPS: 'S0IDENTITY',
      COLLECT_FORCE_ALLOWED_USERS: 'UGRACE',
      COLLECT_COOLDOWN: '10m',
      COLLECT_WATCH_LIMIT: '2h',
    },
    runWatch: { firstPollMs: 5_000, maxIntervalMs: 60_000 },
    startScheduler: false,
  });
  h.slack.userGroups.set('S0IDENTITY', ['UOSCAR', 'UOLIVE']);
  await h.link('UOSCAR', 'ops');
  await h.link('UOLIVE', 'ops');
  await h.link('UGRACE', 'approver+ops');
  await h.link('UEVE', 'ops');
});
afterAll(() => h.close());

const collects = () => h.service.calls.get('collectEntitlements') ?? 0;
const statusCalls = () => h.service.calls.get('getRunStatus') ?? 0;

async function ask(user: string, text: string, channelId = 'C0OPS') {
  const sent = await h.command(user, '/collect', text, { channelId });
  const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
  return answer;
}

/** Starts a collection and returns the channel message the bot posted for it. */
async function start(user: string, text: string, channelId = 'C0OPS') {
  const count = h.slack.posted().length;
  await h.command(user, '/collect', text, { channelId });
  const posts = await h.slack.waitForPosts(count + 1);
  // The watch is written just after the post: wait for the command's work to end before moving the clock.
  await settled(h);
  const post = posts[count];
  if (post === undefined) throw new Error('no post');
  const ts = `1700000000.${String(count + 1).padStart(6, '0')}`;
  return { ...post, ts };
}

/** The latest version of a message the bot keeps up to date. */
const latest = (ts: string) => {
  const u = h.slack
    .updates()
    .filter((x) => x.ts === ts)
    .at(-1);
  return u === undefined ? '' : textOf({ text: u.text, blocks: u.blocks });
};

describe('who may start what', () => {
  it('refuses outside the allowed channels, saying where it is allowed, and never calls the service', async () => {
    const before = collects();
    const answer = await ask('UOSCAR', 'AD Accounts', 'C0RANDOM');
    expect(answer?.response_type).toBe('ephemeral');
    expect(textOf(answer)).toContain('Collections are not started from this channel. Use `/collect` in <#C0OPS>, <#C0SEC>.');
    expect(collects()).toBe(before);
  });

  it('refuses someone neither listed nor in an allowed user group, saying who may', async () => {
    const before = collects();
    const answer = await ask('UEVE', 'AD Accounts');
    expect(textOf(answer)).toContain('You are not among those who may start collections: <@UGRACE>, <!subteam^S0IDENTITY>.');
    // Not even a confirmation for everything.
    const all = await ask('UEVE', '');
    expect(buttonsOf(all)).toEqual([]);
    expect(collects()).toBe(before);
  });

  it('lets a member of an allowed group start one, but keeps force for those listed', async () => {
    const started = await start('UOSCAR', 'Salesforce Users');
    expect(textOf({ text: started.text, blocks: started.blocks })).toMatch(/<@UOSCAR> started 1 collection/);
    const forced = await ask('UOSCAR', 'AWS IAM force');
    expect(textOf(forced)).toContain('Forcing a collection (past its circuit breaker) is kept for <@UGRACE>.');
    const grace = await ask('UGRACE', 'AWS IAM force', 'C0SEC');
    expect(buttonsOf(grace).map((b) => b.text)).toEqual(['Run, forced', 'Cancel']);
  });
});

describe('cooldown', () => {
  it('tells the second starter who started the same collection and when; those allowed may start it anyway', async () => {
    await start('UOSCAR', 'AD Accounts');
    const before = collects();
    const again = await ask('UOLIVE', 'ad accounts', 'C0SEC');
    // Named as the service first named it, not as the second asker typed it.
    expect(textOf(again)).toMatch(
      /<@UOSCAR> started collector \*AD Accounts\* at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC in <#C0OPS>\.\nThe same collection can start again from/,
    );
    expect(buttonsOf(again)).toEqual([]);
    expect(collects()).toBe(before);

    // A minute on, the run has left the service's queue (it would answer 409 before), but the cooldown holds.
    clock.advance(61_000);
    const grace = await ask('UGRACE', 'AD Accounts', 'C0SEC');
    const anyway = buttonsOf(grace).find((b) => b.text === 'Start anyway');
    expect(anyway?.action_id).toBe(CONFIRM_ACTIONS.run);
    const count = h.slack.posted().length;
    await h.click('UGRACE', CONFIRM_ACTIONS.run, anyway?.value);
    await h.slack.waitForPosts(count + 1);
    expect(h.slack.posted()[count]?.channel).toBe('C0SEC');
    expect(collects()).toBe(before + 1);
    // Someone else's "Start anyway" is not theirs to click.
    const stolen = await h.click('UOSCAR', CONFIRM_ACTIONS.run, anyway?.value);
    expect(textOf((await h.slack.waitForResponses(stolen.responseId, 1))[0])).toContain('Only <@UGRACE> can confirm this collection');
  });

  it('lets the same collection start again once the cooldown has passed', async () => {
    clock.advance(10 * 60_000 + 1_000);
    const before = collects();
    await start('UOLIVE', 'AD Accounts', 'C0SEC');
    expect(collects()).toBe(before + 1);
  });
});

describe('live run status', () => {
  it('updates the channel message as runs go New → Running → Completed, backing off, then stops', async () => {
    clock.advance(10 * 60_000 + 1_000);
    const message = await start('UOSCAR', 'Workday Workers');
    expect(textOf({ text: message.text, blocks: message.blocks })).toContain('Updating as the runs go');
    // Not yet: the first look comes a few seconds after the start.
    await h.app.runWatcher.tick();
    expect(latest(message.ts)).toBe('');
    clock.advance(5_000);
    await h.app.runWatcher.tick();
    expect(latest(message.ts)).toMatch(/:hourglass: \*Workday Workers\*: run `\d+` · queued · 5s/);
    clock.advance(60_000);
    await h.app.runWatcher.tick();
    expect(latest(message.ts)).toMatch(/:arrows_counterclockwise: \*Workday Workers\*: run `\d+` · running/);
    const updates = h.slack.updates().length;
    const calls = statusCalls();
    clock.advance(5 * 60_000);
    await h.app.runWatcher.tick();
    expect(latest(message.ts)).toMatch(/:white_check_mark: \*Workday Workers\*: run `\d+` · completed in 5m 00s/);
    expect(latest(message.ts)).toContain(':tada: *The collection completed*');
    expect(h.slack.updates().length).toBe(updates + 1);
    // Finished: no more polling, and the starter gets no DM for a success.
    clock.advance(10 * 60_000);
    await h.app.runWatcher.tick();
    expect(statusCalls()).toBe(calls + 1);
    expect(h.slack.posted().filter((p) => p.channel === 'UOSCAR')).toHaveLength(0);
  });

  it('says when a run is aborted, and tells the starter in a DM', async () => {
    const message = await start('UOLIVE', 'AWS IAM');
    clock.advance(6 * 60_000 + 5_000);
    await h.app.runWatcher.tick();
    expect(latest(message.ts)).toMatch(/:x: \*AWS IAM\*: run `\d+` · \*aborted\* after 5m 00s/);
    expect(latest(message.ts)).toContain('*The collection ended: 0 completed, 1 aborted*');
    const dm = h.slack.posted().filter((p) => p.channel === 'UOLIVE');
    expect(dm).toHaveLength(1);
    // What the service said, and no cause it did not give.
    const said = visible(dm[0]?.blocks as never);
    expect(said).toMatch(
      /^:x: Your collection in <#C\w+>: the Command Service says its run has ended \*Aborted\*\.\n• \*AWS IAM\*: run `\d+`/,
    );
    expect(said).toContain('The service does not say why a run aborted');
    expect(dm[0]?.text).toContain('the Command Service says its run has ended Aborted.');
    for (const claim of ['did not finish well', 'looked wrong', 'circuit breaker']) expect(`${dm[0]?.text}\n${said}`).not.toContain(claim);
  });

  it('carries on after a restart: the watch is in the store', async () => {
    clock.advance(10 * 60_000 + 1_000);
    const message = await start('UGRACE', 'application:"Active Directory"');
    clock.advance(5_000);
    await h.app.runWatcher.tick();
    expect(latest(message.ts)).toContain('queued');
    await h.restart();
    clock.advance(6 * 60_000);
    await h.app.runWatcher.tick();
    expect(latest(message.ts)).toMatch(/All 2 completed/);
    expect(latest(message.ts).match(/completed in/g)).toHaveLength(2);
  });

  it('stops at once, saying so, where the service has no getRunStatus', async () => {
    h.service.setQuirks({ missingCommands: ['getRunStatus'] });
    try {
      clock.advance(10 * 60_000 + 1_000);
      const message = await start('UOSCAR', 'SAP Roles');
      clock.advance(5_000);
      await h.app.runWatcher.tick();
      expect(latest(message.ts)).toContain('Live status is not available from this Command Service (getRunStatus answered 404)');
      const calls = statusCalls();
      clock.advance(60_000);
      await h.app.runWatcher.tick();
      expect(statusCalls()).toBe(calls);
    } finally {
      h.service.setQuirks({});
    }
  });

  it('answers through response_url, without live status, where the bot may not post', async () => {
    clock.advance(10 * 60_000 + 1_000);
    h.slack.closedChannels.add('C0SEC');
    try {
      const answer = await ask('UGRACE', 'GitHub Org Members', 'C0SEC');
      expect(answer?.response_type).toBe('in_channel');
      expect(textOf(answer)).toContain('<@UGRACE> started 1 collection');
      expect(textOf(answer)).toContain('invite countersign to this channel');
    } finally {
      h.slack.closedChannels.delete('C0SEC');
    }
  });
});

describe('audit trail', () => {
  it('records every attempt with its outcome, and /collect history shows the channel’s', async () => {
    const attempts = await h.app.deps.store.listCollectAttempts({ teamId: TEAM, limit: 100 });
    const outcomes = new Set(attempts.map((a) => a.outcome));
    // Grace's "AWS IAM force" was asked to confirm and never answered: that is an attempt too, on one line.
    expect(outcomes).toEqual(new Set(['refused', 'started', 'unanswered']));
    expect(attempts.filter((a) => a.outcome === 'unanswered').map((a) => [a.userId, a.query])).toEqual([
      ['UGRACE', { name: 'AWS IAM', force: true }],
    ]);
    const refusedWhy = attempts.filter((a) => a.outcome === 'refused').map((a) => a.reason?.kind);
    expect(new Set(refusedWhy)).toEqual(new Set(['channel', 'user', 'force', 'cooldown']));
    const workday = attempts.find((a) => a.query.name === 'Workday Workers');
    expect(workday?.runs).toEqual([expect.objectContaining({ collector: 'Workday Workers', state: 'Completed' })]);
    expect(JSON.stringify(attempts)).not.toContain(h.demoToken('ops'));

    const history = await ask('UOSCAR', 'history 5');
    const text = textOf(history);
    expect(history?.response_type).toBe('ephemeral');
    expect(text).toContain('Last 5 collections in this channel');
    expect(text).toMatch(/<@UOSCAR> started collector \*SAP Roles\*: SAP Roles `\d+`/);
    expect(text).toMatch(/started collector \*Workday Workers\*: Workday Workers `\d+` completed/);
    expect(text).not.toContain('C0SEC');
  });

  it('records a name that matched nothing, a failure at the service, and a cancelled confirmation', async () => {
    clock.advance(10 * 60_000 + 1_000);
    const nothing = await ask('UGRACE', 'No Such Collector', 'C0SEC');
    expect(textOf(nothing)).toContain('No collector is called');
    const failed = await ask('UGRACE', 'application:Mainframe', 'C0SEC');
    expect(textOf(failed)).toContain('No eligible collectors found for the application Mainframe');
    const confirm = await ask('UGRACE', '', 'C0SEC');
    const cancel = buttonsOf(confirm).find((b) => b.action_id === CONFIRM_ACTIONS.cancel);
    const c = await h.click('UGRACE', CONFIRM_ACTIONS.cancel, cancel?.value);
    await h.slack.waitForResponses(c.responseId, 1);
    // The question and its Cancel are one line: cancelled.
    const [cancelled, fail, unmatched] = await h.app.deps.store.listCollectAttempts({ channelId: 'C0SEC', limit: 3 });
    expect(unmatched).toMatchObject({ outcome: 'nothing-matched', query: { name: 'No Such Collector' }, runs: [] });
    expect(cancelled).toMatchObject({ outcome: 'cancelled', userId: 'UGRACE', query: {} });
    expect(fail).toMatchObject({ outcome: 'failed', query: { application: 'Mainframe' } });
    expect(fail?.reason).toMatchObject({ kind: 'service', error: 'no-eligible-collectors' });
    // The question and its answer keep their own times: asked, then cancelled.
    expect(cancelled?.steps.map((s) => s.step)).toEqual(['asked', 'cancelled']);
  });
});
