/**
 * /collect end to end: named runs, confirmations, once-only, refusals. (The cooldown is off here,
 * so that the same collectors can be started test after test; collect-operations.test.ts has it on.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRM_ACTIONS } from '../../src/render/collect.js';
import { TestClock } from '../helpers/clock.js';
import { buttonsOf, textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    // Channel writes spaced 1 s apart, as Slack asks, would make these tests wait seconds for nothing.
    perChannelMs: 10,
    reference: { now: clock.now, runTimings: { queuedMs: 1_000, runningMs: 5_000 } },
    env: { COLLECT_COOLDOWN: '0' },
    startScheduler: false,
  });
  await h.link('UOSCAR', 'ops');
  await h.link('UGRACE', 'approver+ops');
  await h.link('UADA', 'approver');
});
afterAll(() => h.close());

const collects = () => h.service.calls.get('collectEntitlements') ?? 0;
/** The next message the bot posts in a channel (the collection's live message). */
async function nextPost(): Promise<string> {
  const count = h.slack.posted().length;
  const posts = await h.slack.waitForPosts(count + 1);
  const post = posts[count];
  return textOf({ text: post?.text ?? '', blocks: post?.blocks ?? [] });
}

// The reference service's clock moves only when a test says so: a run stays queued (and a second
// start of its collector answers 409) until queueEmpty() moves time past the queue.
const clock = new TestClock(new Date());
const queueEmpty = async () => clock.advance(1_500);

async function confirmation(user: string, text: string) {
  await queueEmpty();
  const sent = await h.command(user, '/collect', text);
  const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
  const run = buttonsOf(answer).find((b) => b.action_id === CONFIRM_ACTIONS.run);
  return { sent, answer, run, cancel: buttonsOf(answer).find((b) => b.action_id === CONFIRM_ACTIONS.cancel) };
}

describe('/collect', () => {
  it('runs a named collector at once and tells the channel who started which run', async () => {
    await queueEmpty();
    const before = collects();
    const posted = nextPost();
    const sent = await h.command('UOSCAR', '/collect', 'Salesforce Users', { channelId: 'C0OPS' });
    expect(sent.ackMs).toBeLessThan(3000);
    expect(await posted).toMatch(/<@UOSCAR> started 1 collection at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC:\n• \*Salesforce Users\*: run `\d+`/);
    expect(h.slack.posted().at(-1)?.channel).toBe('C0OPS');
    expect(collects()).toBe(before + 1);
  });

  it('runs every collector of an application, listing each run', async () => {
    await queueEmpty();
    const posted = nextPost();
    await h.command('UGRACE', '/collect', 'application:"Active Directory"');
    const text = await posted;
    expect(text).toMatch(/started 2 collections at [^\n]+:\n• \*AD Accounts\*: run `\d+`\n• \*AD Groups\*: run `\d+`/);
    expect(text).toContain('application “Active Directory”');
  });

  it('passes the service’s 404 for an application without collectors to the asker alone', async () => {
    const sent = await h.command('UOSCAR', '/collect', 'application:Mainframe');
    const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
    expect(answer?.response_type).toBe('ephemeral');
    expect(textOf(answer)).toContain('No eligible collectors found for the application Mainframe');
  });

  it('passes on a 409 when the collector is still queued', async () => {
    await queueEmpty();
    const posted = nextPost();
    await h.command('UOSCAR', '/collect', 'Workday Workers');
    await posted;
    const second = await h.command('UOSCAR', '/collect', 'Workday Workers');
    const [answer] = await h.slack.waitForResponses(second.responseId, 1);
    expect(answer?.response_type).toBe('ephemeral');
    expect(textOf(answer)).toContain('already in the queue for processing');
    expect(textOf(answer)).toContain('Nothing new was started');
  });

  it('says so when a name matches no collector', async () => {
    const sent = await h.command('UOSCAR', '/collect', 'No Such Thing');
    const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
    expect(answer?.response_type).toBe('ephemeral');
    expect(textOf(answer)).toContain('No collector is called *No Such Thing*, so nothing was started');
  });

  it('asks before starting everything, and one confirmation starts exactly one collection however often it is clicked', async () => {
    const { answer, run } = await confirmation('UOSCAR', '');
    expect(answer?.response_type).toBe('ephemeral');
    expect(textOf(answer)).toContain('every collector of every application');
    const before = collects();
    const postsBefore = h.slack.posted().length;
    const posted = nextPost();
    const clicks = await Promise.all([1, 2, 3, 4].map(() => h.click('UOSCAR', CONFIRM_ACTIONS.run, run?.value)));
    expect(clicks.every((c) => c.status === 200 && c.ackMs < 3000)).toBe(true);
    const all = await Promise.all(clicks.map((c) => h.slack.waitForResponses(c.responseId, 1)));
    expect(await posted).toMatch(/<@UOSCAR> started 7 collections/);
    await settled(h);
    const everything = clicks.flatMap((c) => h.slack.responses(c.responseId));
    expect(h.slack.posted().length).toBe(postsBefore + 1);
    expect(everything.filter((r) => textOf(r).includes('already used'))).toHaveLength(3);
    expect(everything.filter((r) => textOf(r).includes('Started: the result is in the channel.'))).toHaveLength(1);
    expect(collects()).toBe(before + 1);
    expect(all).toHaveLength(4);
  });

  it('asks before forcing, with a danger button', async () => {
    const { answer, run } = await confirmation('UOSCAR', 'AWS IAM force');
    expect(textOf(answer)).toContain('*Force* ignores the circuit-breaker thresholds');
    expect(run?.text).toBe('Run, forced');
    const posted = nextPost();
    await h.click('UOSCAR', CONFIRM_ACTIONS.run, run?.value);
    expect(await posted).toMatch(/started 1 collection \(forced\) at [^\n]+:\n• \*AWS IAM\*/);
  });

  it('lets only the asker confirm, without using up the confirmation', async () => {
    const { run, cancel } = await confirmation('UOSCAR', '');
    const before = collects();
    await queueEmpty();
    const other = await h.click('UGRACE', CONFIRM_ACTIONS.run, run?.value);
    const [refusal] = await h.slack.waitForResponses(other.responseId, 1);
    expect(textOf(refusal)).toContain('Only <@UOSCAR> can confirm this collection: <@UOSCAR> asked for it.');
    expect(textOf(refusal)).not.toContain('page through');
    const otherCancel = await h.click('UGRACE', CONFIRM_ACTIONS.cancel, cancel?.value);
    expect(textOf((await h.slack.waitForResponses(otherCancel.responseId, 1))[0])).toContain('Only <@UOSCAR> can cancel this collection');
    expect(collects()).toBe(before);
    const posted = nextPost();
    const own = await h.click('UOSCAR', CONFIRM_ACTIONS.run, run?.value);
    const responses = await h.slack.waitForResponses(own.responseId, 2);
    expect(textOf(responses.at(-1))).toContain('Started: the result is in the channel.');
    expect(await posted).toContain('<@UOSCAR> started 7 collections');
    expect(collects()).toBe(before + 1);
  });

  it('starts nothing after Cancel, even if Run is clicked later', async () => {
    const { run, cancel } = await confirmation('UOSCAR', 'force');
    const before = collects();
    const c = await h.click('UOSCAR', CONFIRM_ACTIONS.cancel, cancel?.value);
    expect(textOf((await h.slack.waitForResponses(c.responseId, 1))[0])).toContain('Cancelled. Nothing was started.');
    const r = await h.click('UOSCAR', CONFIRM_ACTIONS.run, run?.value);
    expect(textOf((await h.slack.waitForResponses(r.responseId, 1))[0])).toContain('already used');
    expect(collects()).toBe(before);
  });

  it('tells a user whose token lacks collectEntitlements, and an unlinked one, before asking anything', async () => {
    const denied = await h.command('UADA', '/collect', 'SAP Roles');
    const [deniedAnswer] = await h.slack.waitForResponses(denied.responseId, 1);
    expect(textOf(deniedAnswer)).toContain('Your token does not let you start collections.');
    expect(buttonsOf(deniedAnswer).map((b) => [b.text, JSON.parse(b.value ?? '{}')])).toEqual([
      ['Link again', { kind: 'collect', query: { name: 'SAP Roles' } }],
    ]);
    const unlinked = await h.command('UNOBODY', '/collect', '');
    const [answer] = await h.slack.waitForResponses(unlinked.responseId, 1);
    expect(textOf(answer)).toContain('Type `/collect login` to link your account, or ask your Slack admins to link it for you.');
    expect(buttonsOf(answer)).toEqual([]);
  });

  it('refuses bad input without calling the service', async () => {
    const before = collects();
    const sent = await h.command('UOSCAR', '/collect', 'aplication:AWS');
    const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
    expect(textOf(answer)).toContain('Did you mean `application`?');
    const forged = await h.click('UOSCAR', CONFIRM_ACTIONS.run, 'made-up-confirmation-id');
    expect(textOf((await h.slack.waitForResponses(forged.responseId, 1))[0])).toContain('This button no longer works');
    expect(collects()).toBe(before);
  });
});
