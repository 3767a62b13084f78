/**
 * A newcomer's trial of /collect, end to end against the reference service, as it went in the
 * playground: Oscar starts AD Accounts, then everything, then the whole of Active Directory; AWS
 * IAM aborts and he forces it; he mistypes. Each step is what was found wrong, and how it reads now.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRM_ACTIONS } from '../../src/render/collect.js';
import { TestClock } from '../helpers/clock.js';
import { buttonsOf, textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness, TEAM } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';

const clock = new TestClock(new Date());
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    // Channel writes spaced 1 s apart, as Slack asks, would make these tests wait seconds for nothing.
    perChannelMs: 10,
    now: clock.now,
    // The demo's timings: a run waits 2 s, then runs 8 s.
    reference: { now: clock.now, runTimings: { queuedMs: 2_000, runningMs: 8_000 } },
    env: { COLLECT_COOLDOWN: '10m' },
    runWatch: { firstPollMs: 3_000, maxIntervalMs: 60_000 },
    startScheduler: false,
  });
  await h.link('UOSCAR', 'ops');
});
afterAll(() => h.close());

const collects = () => h.service.calls.get('collectEntitlements') ?? 0;

async function ask(text: string) {
  const sent = await h.command('UOSCAR', '/collect', text, { channelId: 'C0OPS' });
  const answers = await h.slack.waitForResponses(sent.responseId, 1);
  await settled(h);
  return { answer: answers[0] };
}

const attempts = () => h.app.deps.store.listCollectAttempts({ teamId: TEAM, limit: 50 });

describe('a newcomer’s trial of /collect', () => {
  it('starts AD Accounts', async () => {
    const count = h.slack.posted().length;
    await h.command('UOSCAR', '/collect', 'AD Accounts', { channelId: 'C0OPS' });
    await h.slack.waitForPosts(count + 1);
    await settled(h);
    expect(collects()).toBe(1);
  });

  it('a minute later, everything is held by AD Accounts alone: the notice tells Oscar what he started, why nothing else started, and what he can do', async () => {
    clock.advance(60_000);
    const { answer } = await ask('');
    const text = textOf(answer);
    expect(text).not.toMatch(/started \*every collector of every application\* at/);
    // What is blocked, until when, and what he can do now, in two sentences; nothing of countersign's own workings.
    expect(text).toMatch(
      /\n:hand: Nothing was started: you started \*AD Accounts\* at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC in <#C0OPS>, and starting \*every collector of every application\* now would run it again\.\nYou can start \*every collector of every application\* from \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC, or now with \*Start anyway\*, which runs \*AD Accounts\* a second time\./,
    );
    expect(text).not.toContain('does not know');
    expect(text).not.toContain('by name');
    expect(buttonsOf(answer).map((b) => b.text)).toEqual(['Start anyway', 'Cancel']);
    expect(collects()).toBe(1);
  });

  it('a forced start held by the cooldown and left unanswered is in the audit trail, as the bare one is', async () => {
    const { answer } = await ask('AD Accounts force');
    expect(buttonsOf(answer).map((b) => b.text)).toEqual(['Start anyway, forced', 'Cancel']);
    const [forced, everything] = await attempts();
    expect(forced).toMatchObject({ query: { name: 'AD Accounts', force: true }, outcome: 'refused' });
    expect(forced?.reason).toMatchObject({ kind: 'cooldown', userId: 'UOSCAR', offered: true });
    expect(everything).toMatchObject({ query: {}, outcome: 'refused' });
    expect(collects()).toBe(1);
  });

  it('the whole of Active Directory, 40 s on, starts AD Accounts again (nothing said it belongs there) and says so; from then on it is known', async () => {
    clock.advance(40_000);
    const count = h.slack.posted().length;
    const sent = await h.command('UOSCAR', '/collect', 'application:"Active Directory"', { channelId: 'C0OPS' });
    await h.slack.waitForPosts(count + 1);
    const [ranAgain] = await h.slack.waitForResponses(sent.responseId, 1);
    await settled(h);
    expect(textOf(ranAgain)).toContain(
      ':warning: Started again within the cooldown: countersign did not know that *Active Directory* has this collector:',
    );
    expect(textOf(ranAgain)).toMatch(/• \*AD Accounts\*: you started it at .* in <#C0OPS>/);
    expect(collects()).toBe(2);

    clock.advance(60_000);
    const { answer } = await ask('application:"Active Directory"');
    expect(textOf(answer)).toMatch(/:hand: You started every collector of \*Active Directory\* at/);
    expect(collects()).toBe(2);
  });

  it('AWS IAM aborts: the DM says to check before starting it again, and forcing it is asked, not refused by the cooldown', async () => {
    const count = h.slack.posted().length;
    await h.command('UOSCAR', '/collect', 'AWS IAM', { channelId: 'C0OPS' });
    await h.slack.waitForPosts(count + 1);
    await settled(h);
    clock.advance(11_000);
    await h.app.runWatcher.tick();
    const dm = h.slack.posted().filter((p) => p.channel === 'UOSCAR');
    expect(dm).toHaveLength(1);
    const words = textOf({ text: dm[0]?.text ?? '', blocks: dm[0]?.blocks ?? [] });
    expect(words).toContain('Check it in the service before starting it again');
    expect(words).not.toContain('before forcing it');

    clock.advance(60_000);
    const { answer } = await ask('AWS IAM force');
    expect(textOf(answer)).not.toContain('can start again from');
    const run = buttonsOf(answer).find((b) => b.action_id === CONFIRM_ACTIONS.run);
    expect(run?.text).toBe('Run, forced');
    const before = collects();
    const posts = h.slack.posted().length;
    const click = await h.click('UOSCAR', CONFIRM_ACTIONS.run, run?.value);
    await h.slack.waitForPosts(posts + 1);
    await h.slack.waitForResponses(click.responseId, 1);
    await settled(h);
    expect(collects()).toBe(before + 1);
    // The question and its Run are one line of the trail.
    const [forced] = await attempts();
    expect(forced).toMatchObject({ query: { name: 'AWS IAM', force: true }, outcome: 'started' });
    expect((await attempts()).filter((a) => a.query.name === 'AWS IAM' && a.query.force)).toHaveLength(1);
  });

  it('answers a subcommand with a word too many, and sends nothing', async () => {
    const before = collects();
    for (const [text, sub] of [
      ['login now', 'login'],
      ['whoami extra', 'whoami'],
      ['logout please', 'logout'],
    ] as const) {
      const { answer } = await ask(text);
      expect(textOf(answer)).toContain(`${sub} takes nothing after it; “${text.split(' ')[1]}” is one word too many.`);
      expect(textOf(answer)).toContain(`\`/collect ${sub}\``);
    }
    expect(collects()).toBe(before);
    expect((await attempts()).some((a) => a.query.name?.startsWith('login') || a.query.name?.startsWith('whoami'))).toBe(false);
  });

  it('offers force for “forse” once the service has said no collector has that name', async () => {
    clock.advance(10 * 60_000);
    const { answer } = await ask('AD Accounts forse');
    expect(textOf(answer)).toContain('No collector is called *AD Accounts forse*, so nothing was started.');
    expect(textOf(answer)).toContain('Did you mean `/collect AD Accounts force`?');
  });

  it('shows every attempt once in /collect history, questions left unanswered included', async () => {
    const { answer } = await ask('history 20');
    const text = textOf(answer);
    expect(text).toContain('collector *AD Accounts*, forced · *refused*: <@UOSCAR> had started it');
    expect(text).toContain('Start anyway was offered, not taken');
    expect(text).toContain('*every collector of every application* · *refused*');
    expect(text.match(/collector \*AWS IAM\*, forced/g)).toHaveLength(1);
  });
});
