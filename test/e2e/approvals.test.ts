/** /approvals end to end: the real app over signed HTTP against the reference service. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_ACTIONS } from '../../src/render/approvals.js';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { buttonsOf, type ResponseBody, textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { mrkdwnTexts, shownExactly } from '../helpers/visible.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.link('UADA', 'approver');
  await h.link('UGRACE', 'approver+ops');
  await h.link('UEXPIRED', 'expired');
  await h.link('UAPP', 'trusted-app');
});
afterAll(() => h.close());

const calls = () => h.service.calls.get('findApprovals') ?? 0;
const workItemIds = (text: string) => [...text.matchAll(/`(\d+:[A-Z]+:\d+)`/g)].map((m) => m[1]);

describe('/approvals', () => {
  it('acks at once and answers ephemerally with the first page of pending approvals', async () => {
    const sent = await h.command('UADA', '/approvals', '');
    expect(sent.status).toBe(200);
    expect(sent.ackMs).toBeLessThan(3000);
    const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
    expect(answer?.response_type).toBe('ephemeral');
    const text = textOf(answer);
    expect(text).toContain('Pending approvals');
    expect(workItemIds(text)).toHaveLength(10);
    expect(text).toMatch(/Due \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2}/);
    // Each approval has Details; the page, Next.
    expect(buttonsOf(answer).map((b) => b.action_id)).toEqual([...Array(10).fill(DETAILS_ACTIONS.open), PAGE_ACTIONS.next]);
  });

  it('pages forward and back, replacing the message, with the same results as typed queries', async () => {
    const first = await h.command('UADA', '/approvals', 'page-size:5');
    const [page1] = await h.slack.waitForResponses(first.responseId, 1);
    const next = buttonsOf(page1).find((b) => b.action_id === PAGE_ACTIONS.next);
    const click = await h.click('UADA', PAGE_ACTIONS.next, next?.value);
    expect(click.status).toBe(200);
    const [page2] = await h.slack.waitForResponses(click.responseId, 1);
    expect(page2?.replace_original).toBe(true);
    expect(textOf(page2)).toContain('Pending approvals · page 2');
    const typed = await h.command('UADA', '/approvals', 'page-size:5 start-page:2');
    const [typedPage2] = await h.slack.waitForResponses(typed.responseId, 1);
    expect(workItemIds(textOf(page2))).toEqual(workItemIds(textOf(typedPage2)));
    expect(workItemIds(textOf(page2))).not.toEqual(workItemIds(textOf(page1)));

    const previous = buttonsOf(page2).find((b) => b.action_id === PAGE_ACTIONS.previous);
    const back = await h.click('UADA', PAGE_ACTIONS.previous, previous?.value);
    const [again] = await h.slack.waitForResponses(back.responseId, 1);
    expect(again?.replace_original).toBe(true);
    expect(workItemIds(textOf(again))).toEqual(workItemIds(textOf(page1)));
  });

  it('refuses another user’s click politely, without calling the service or replacing the message', async () => {
    const first = await h.command('UADA', '/approvals', '');
    const [page1] = await h.slack.waitForResponses(first.responseId, 1);
    const next = buttonsOf(page1).find((b) => b.action_id === PAGE_ACTIONS.next);
    const before = calls();
    const click = await h.click('UGRACE', PAGE_ACTIONS.next, next?.value);
    const [refusal] = await h.slack.waitForResponses(click.responseId, 1);
    expect(refusal?.replace_original).toBe(false);
    expect(refusal?.response_type).toBe('ephemeral');
    expect(textOf(refusal)).toContain('Only <@UADA> can page through these approvals');
    expect(calls()).toBe(before);
  });

  it('refuses a tampered button the same way as bad typing: nothing reaches the service', async () => {
    const before = calls();
    for (const value of ['{"u":"UADA","q":{"page-size":5000}}', '{"u":"UADA","q":{"auth-user-id":"ada"}}', 'not json', undefined]) {
      const click = await h.click('UADA', PAGE_ACTIONS.next, value);
      const [answer] = await h.slack.waitForResponses(click.responseId, 1);
      expect(textOf(answer)).toContain('This button no longer works');
    }
    expect(calls()).toBe(before);
  });

  it('answers bad input with what was wrong and the right form, and sends nothing', async () => {
    const before = calls();
    for (const [text, expected] of [
      ['entitlment-name:VPN', 'Did you mean `entitlement-name`?'],
      ['due-before:someday', 'due-before: someday is not a date'],
      ['page-size:0', 'page-size:0 is not a whole number from 1 to 100'],
      ['state:"pending', 'never closed'],
    ] as const) {
      const sent = await h.command('UADA', '/approvals', text);
      const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
      expect(answer?.response_type).toBe('ephemeral');
      expect(textOf(answer)).toContain(expected);
      expect(textOf(answer)).toContain('Try: `/approvals');
    }
    expect(calls()).toBe(before);
  });

  it('shows help', async () => {
    const sent = await h.command('UADA', '/approvals', 'help');
    const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
    expect(textOf(answer)).toContain('entitlement-name');
  });

  it('tells an unlinked user how to link, in their words: no admin command, no raw Slack id', async () => {
    const sent = await h.command('UNOBODY', '/approvals', '');
    const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
    expect(textOf(answer)).toContain('Type `/approvals login` to link your account, or ask your Slack admins to link it for you.');
    expect(textOf(answer)).not.toMatch(/countersign tokens|UNOBODY|findApprovals/);
    expect(textOf(answer)).toContain('so countersign cannot list your approvals for you.');
  });

  it('translates a 401 (expired token) and a 412 (application token) into clear messages', async () => {
    const expired = await h.command('UEXPIRED', '/approvals', '');
    expect(textOf((await h.slack.waitForResponses(expired.responseId, 1))[0])).toContain('Your token is not valid or has expired');
    const app = await h.command('UAPP', '/approvals', '');
    const text = textOf((await h.slack.waitForResponses(app.responseId, 1))[0]);
    expect(text).toContain('The parameter auth-user-id is required.');
    expect(text).toContain('belongs to an application');
  });

  it('renders a request named <!channel> inertly', async () => {
    // The demo approver's 240 approvals hold the hostile names somewhere: read all three pages of 100.
    const answers: ResponseBody[] = [];
    for (const page of [1, 2, 3]) {
      const sent = await h.command('UADA', '/approvals', `page-size:100 state:all start-page:${page}`);
      const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
      expect(answer?.blocks?.length).toBeLessThanOrEqual(50);
      if (answer) answers.push(answer);
    }
    const blocks = answers.flatMap((a) => a.blocks ?? []);
    // Shown exactly as the service named them, in rich text: never a ping, a link or markup.
    for (const name of [
      '<!channel> urgent: Add Access for Bobby Tables',
      'Add Access for <b>Mallory</b> & friends',
      'Add Access for *bold* _italic_ ~strike~ `code`',
    ])
      expect(shownExactly(blocks, name)).toBe(true);
    expect(mrkdwnTexts(blocks).join('\n')).not.toMatch(/<!channel>|Mallory|\*bold\*/);
    // The notification pings no one either.
    expect(answers.map((a) => a.text).join('\n')).not.toContain('<!channel>');
    // A bidirectional override from the service is shown as a mark, never obeyed: not "Invoice exe.jpg".
    expect(shownExactly(blocks, 'Invoice [U+202E]gpj.exe')).toBe(true);
    expect(JSON.stringify(answers)).not.toMatch(/\u202e|\\u202e/i);
  });

  it('answers in the user’s Slack time zone', async () => {
    h.slack.timeZones.set('UTZ', 'Pacific/Kiritimati');
    await h.link('UTZ', 'approver');
    const sent = await h.command('UTZ', '/approvals', 'due-before:today state:all page-size:1');
    await h.slack.waitForResponses(sent.responseId, 1);
    expect(h.slack.apiCalls.some((c) => c.method === 'users.info' && c.body.includes('UTZ'))).toBe(true);
  });
});
