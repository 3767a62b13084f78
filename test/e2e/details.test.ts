/**
 * An approval's details, end to end: the real app over signed HTTP against the reference service,
 * Slack's side played on loopback (every view is checked as Slack would check it, and the harness
 * fails on close if any was refused).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeDetailsButton } from '../../src/parse/details.js';
import { PAGE_ACTIONS } from '../../src/render/approvals.js';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { LINK_FIELDS } from '../../src/render/link.js';
import { eventually as until } from '../helpers/eventually.js';
import { buttonsOf, type ResponseBody, textOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { visible } from '../helpers/visible.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { APPROVAL_URL_TEMPLATE: 'https://igl.example.com/aveksa/main?WorkItemId={WorkItemId}' } });
  await h.link('UADA', 'approver');
  await h.link('UGRACE', 'approver+ops');
  await h.link('UOLD', 'expired');
});
afterAll(() => h.close());

type View = Record<string, unknown> & { blocks: unknown[]; private_metadata?: string };

/** The next views.update of this view after `after` updates in all, once its text says `until`. */
async function updateOf(viewId: string, after: number, says?: string): Promise<{ view: View; text: string }> {
  return until(`views.update of ${viewId}${says ? ` saying ${says}` : ''}`, () => {
    const found = viewsSent(h.slack, 'views.update')
      .slice(after)
      .filter((u) => u.viewId === viewId)
      .map((u) => ({ view: u.view as View, text: visible((u.view as View).blocks) }))
      .find((u) => says === undefined || u.text.includes(says));
    return found;
  });
}

/** The id the Slack stand-in gave the n-th view opened: V and the call's place among all calls. */
function openedViewId(n: number): string {
  const call = h.slack.apiCalls.filter((c) => c.method === 'views.open')[n];
  return `V${h.slack.apiCalls.indexOf(call as (typeof h.slack.apiCalls)[number]) + 1}`;
}

const counts = () => ({ open: viewsSent(h.slack, 'views.open').length, update: viewsSent(h.slack, 'views.update').length });

/** Clicks Details, waits for the loading view and the update that follows; returns both. */
async function clickDetails(userId: string, value: string | undefined, options: { responseUrl?: { id: string; url: string } } = {}) {
  const before = counts();
  const sent = await h.click(userId, DETAILS_ACTIONS.open, value, options);
  expect(sent.status).toBe(200);
  const opened = await until('views.open', () => viewsSent(h.slack, 'views.open')[before.open]);
  const shown = await updateOf(openedViewId(before.open), before.update);
  return { sent, opened, viewId: openedViewId(before.open), ...shown };
}

async function adaPage(text = 'page-size:10'): Promise<{ answer: ResponseBody; responseUrl: { id: string; url: string } }> {
  const responseUrl = h.slack.responseUrl();
  await h.command('UADA', '/approvals', text, { responseUrl });
  const [answer] = await h.slack.waitForResponses(responseUrl.id, 1);
  return { answer: answer as ResponseBody, responseUrl };
}

const detailsButtons = (answer: ResponseBody | undefined) => buttonsOf(answer).filter((b) => b.action_id === DETAILS_ACTIONS.open);
const approvalIdOf = (value: string | undefined) => decodeDetailsButton(value)?.approvalId ?? '';

describe('Details of an approval', () => {
  it('puts Details beside Open on each approval, opens a loading view with the click’s trigger, then shows the details and items', async () => {
    const { answer } = await adaPage();
    const buttons = detailsButtons(answer);
    expect(buttons).toHaveLength(10);
    expect(buttonsOf(answer).filter((b) => b.action_id === 'approval:open')).toHaveLength(10);
    const { sent, opened, text, view } = await clickDetails('UADA', buttons[0]?.value);
    expect(sent.ackMs).toBeLessThan(3000);
    expect(opened.triggerId).toMatch(/^1234\./);
    expect(visible((opened.view as View).blocks)).toContain('Asking the Command Service about');
    const id = approvalIdOf(buttons[0]?.value);
    expect(text).toContain(`Approval id \`${id}\``);
    expect(text).toContain('requested by');
    expect(text).toMatch(/Due \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2}/);
    // Counted as a person counts: "3 items" (or "items 1–10" when more may follow), never "items 1–1".
    expect(text).toMatch(/\*What the request asks for\* · (\d+ items?|items 1–10, perhaps more)\b/);
    expect(text).not.toContain('1–1 ');
    expect(text).toMatch(/• Add .+, .+ to \w+ .+ \(.+\)/);
    expect(text).toMatch(/In the service this step can end as \*\w+/);
    expect(text).toContain('[Open in the service]');
    expect(view.title).toEqual({ type: 'plain_text', text: 'Approval details' });
  });

  it('still opens from a Details button posted before its value was shortened, keeping the page for Refresh', async () => {
    const { answer } = await adaPage();
    const id = approvalIdOf(detailsButtons(answer)[0]?.value);
    expect(detailsButtons(answer)[0]?.value).toBe(JSON.stringify([id, 'UADA', { 'page-size': 10 }]));
    // The object form every page carried until then: the asker and the query spelled out with their keys.
    const old = JSON.stringify({ a: id, o: 'p', u: 'UADA', q: { 'page-size': 10 } });
    const { text, view } = await clickDetails('UADA', old);
    expect(text).toContain(`Approval id \`${id}\``);
    expect(text).toContain('What the request asks for');
    expect(decodeDetailsButton(old)).toEqual(decodeDetailsButton(detailsButtons(answer)[0]?.value));
    expect(JSON.parse(view.private_metadata ?? '{}')).toMatchObject({ a: id, o: 'p', u: 'UADA', q: { 'page-size': 10 } });
  });

  it('pages the request’s items inside the modal, in place', async () => {
    const { answer } = await adaPage('page-size:20');
    let found: { viewId: string; view: View; text: string } | undefined;
    for (const b of detailsButtons(answer)) {
      const shown = await clickDetails('UADA', b.value);
      if (shown.text.includes('[Next page]')) {
        found = shown;
        break;
      }
    }
    if (found === undefined) throw new Error('no approval on the first page has more than ten items');
    const calls = h.service.calls.get('getRequestItems') ?? 0;
    const before = counts().update;
    await h.clickInView('UADA', found.view, found.viewId, DETAILS_ACTIONS.next, '2');
    const second = await updateOf(found.viewId, before);
    expect(second.text).toContain('items 11–');
    expect(second.text).toContain('[Previous page]');
    expect(h.service.calls.get('getRequestItems')).toBe(calls + 1);
    expect(JSON.parse(second.view.private_metadata ?? '{}')).toMatchObject({ p: 2 });
    const back = counts().update;
    await h.clickInView('UADA', second.view, found.viewId, DETAILS_ACTIONS.previous, '1');
    expect((await updateOf(found.viewId, back)).text).toContain('items 1–10');
  });

  it('reads with the clicker’s own token: another user’s click on Ada’s Details sees only what they may see', async () => {
    const { answer } = await adaPage();
    const value = detailsButtons(answer)[1]?.value;
    const ada = await clickDetails('UADA', value);
    expect(ada.text).toContain('What the request asks for');
    const grace = await clickDetails('UGRACE', value);
    // Never Grace's to lose: the service has none by that id that she may see.
    expect(grace.text).toContain('has no approval');
    expect(grace.text).not.toContain('no longer visible');
    // Not Grace's list to refresh: no Refresh for her.
    expect(grace.text).not.toContain('[Refresh the list]');
    const nobody = await clickDetails('UNOBODY', value);
    expect(nobody.text).toContain('not linked to the Command Service');
    expect(nobody.text).toContain('[Link your account]');
  });

  it('offers "Details of…" on a page packed several approvals to a block', async () => {
    const { answer } = await adaPage('page-size:40');
    const select = (answer.blocks ?? []).find((b) => b.type === 'actions' && String(b.block_id).startsWith('details')) as
      | { block_id: string; elements: Array<{ action_id: string; options: Array<{ value: string }> }> }
      | undefined;
    expect(select?.elements[0]?.options).toHaveLength(40);
    const id = select?.elements[0]?.options[3]?.value ?? '';
    const before = counts();
    await h.choose('UADA', DETAILS_ACTIONS.select, select?.block_id ?? '', id);
    await until('views.open', () => viewsSent(h.slack, 'views.open')[before.open]);
    const shown = await until('the details', () =>
      viewsSent(h.slack, 'views.update')
        .slice(before.update)
        .find((u) => visible((u.view as View).blocks).includes(id)),
    );
    expect(visible((shown.view as View).blocks)).toContain('What the request asks for');
  });

  it('says an approval that was reassigned is no longer visible, and Refresh issues the page again in place', async () => {
    const { answer, responseUrl } = await adaPage('page-size:5');
    const value = detailsButtons(answer)[0]?.value;
    const id = approvalIdOf(value);
    // An administrator reassigns it while the page is on screen.
    h.service.db.prepare("UPDATE approvals SET approver_id = 'grace.hopper' WHERE work_item_id = ?").run(id);
    const gone = await clickDetails('UADA', value, { responseUrl });
    expect(gone.text).toContain(`The approval \`${id}\` is no longer visible to you: it may have been completed, reassigned or withdrawn.`);
    expect(gone.text).toContain('[Refresh the list]');
    const before = counts().update;
    await h.clickInView('UADA', gone.view, gone.viewId, DETAILS_ACTIONS.refresh, 'page');
    const [, refreshed] = await h.slack.waitForResponses(responseUrl.id, 2);
    expect(refreshed?.replace_original).toBe(true);
    expect(textOf(refreshed)).toContain('Pending approvals');
    expect(textOf(refreshed)).not.toContain(id);
    expect((await updateOf(gone.viewId, before)).text).toContain('the list behind this window shows what waits for you now');
  });

  it('from Home: Details opens the modal, and Refresh publishes Home again', async () => {
    await h.event('UADA', { type: 'app_home_opened', channel: 'D1', tab: 'home', event_ts: '1.2' });
    const publish = await until('views.publish', () => h.slack.apiCalls.filter((c) => c.method === 'views.publish').at(-1));
    const home = JSON.parse(new URLSearchParams(publish.body).get('view') ?? '{}') as View;
    const value = (home.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value?: string }> }>)
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === DETAILS_ACTIONS.open)?.value;
    expect(value).toBeDefined();
    const id = approvalIdOf(value);
    h.service.db.prepare("UPDATE approvals SET approver_id = 'grace.hopper' WHERE work_item_id = ?").run(id);
    const before = counts();
    await h.clickOnHome('UADA', DETAILS_ACTIONS.open, value);
    await until('views.open', () => viewsSent(h.slack, 'views.open')[before.open]);
    const gone = await until('the update', () =>
      viewsSent(h.slack, 'views.update')
        .slice(before.update)
        .find((u) => visible((u.view as View).blocks).includes('[Refresh Home]')),
    );
    const publishes = h.slack.apiCalls.filter((c) => c.method === 'views.publish').length;
    await h.clickInView('UADA', gone.view as View, gone.viewId ?? '', DETAILS_ACTIONS.refresh, 'home');
    await until('Home published again', () =>
      h.slack.apiCalls.filter((c) => c.method === 'views.publish').length > publishes ? true : undefined,
    );
    const again = h.slack.apiCalls.filter((c) => c.method === 'views.publish').at(-1);
    expect(new URLSearchParams(again?.body ?? '').get('view')).not.toContain(id);
  });

  it('opens the same modal for /approvals show <id>, and answers a missing or malformed id with the right form', async () => {
    const { answer } = await adaPage();
    const id = approvalIdOf(detailsButtons(answer)[2]?.value);
    const before = counts();
    const sent = await h.command('UADA', '/approvals', `show ${id}`);
    const opened = await until('views.open', () => viewsSent(h.slack, 'views.open')[before.open]);
    expect(opened.triggerId).toMatch(/^1234\./);
    const shown = await until('the details', () =>
      viewsSent(h.slack, 'views.update')
        .slice(before.update)
        .find((u) => visible((u.view as View).blocks).includes(id)),
    );
    expect(visible((shown.view as View).blocks)).toContain('What the request asks for');
    expect(h.slack.responses(sent.responseId)).toEqual([]);
    for (const [text, expected] of [
      ['show', 'Say which approval to show'],
      ['show 12345', '“12345” is not an approval id'],
      ['shwo 1:A:1', 'Did you mean `show`?'],
    ] as const) {
      const bad = await h.command('UADA', '/approvals', text);
      const [reply] = await h.slack.waitForResponses(bad.responseId, 1);
      expect(textOf(reply)).toContain(expected);
      expect(textOf(reply)).toContain('Try: `/approvals');
    }
    const unknown = await h.command('UADA', '/approvals', 'show 999999:WPDS:1');
    expect(unknown.status).toBe(200);
    const missing = await until('the not-visible view', () =>
      viewsSent(h.slack, 'views.update').find((u) =>
        visible((u.view as View).blocks).includes('The Command Service has no approval `999999:WPDS:1` that you can see.'),
      ),
    );
    // Typed, not seen before: it may never have existed, so it is not "no longer visible".
    expect(visible((missing.view as View).blocks)).toContain('Check the id');
    expect(visible((missing.view as View).blocks)).not.toContain('no longer visible');
  });

  it('on a refused token offers Link again: the sign-in modal is pushed over it, and once linked the details appear underneath', async () => {
    const { answer } = await adaPage();
    const id = approvalIdOf(detailsButtons(answer)[0]?.value);
    const before = counts();
    await h.command('UOLD', '/approvals', `show ${id}`);
    await until('views.open', () => viewsSent(h.slack, 'views.open')[before.open]);
    const refused = await until('the refusal', () =>
      viewsSent(h.slack, 'views.update')
        .slice(before.update)
        .find((u) => visible((u.view as View).blocks).includes('not valid or has expired')),
    );
    const text = visible((refused.view as View).blocks);
    expect(text).toContain('[Link again]');
    const pushes = viewsSent(h.slack, 'views.push').length;
    await h.clickInView('UOLD', refused.view as View, refused.viewId ?? '', DETAILS_ACTIONS.relink, 'relink');
    const pushed = await until('views.push', () => viewsSent(h.slack, 'views.push')[pushes]);
    expect(pushed.triggerId).toMatch(/^1234\./);
    expect(JSON.stringify(pushed.view)).toContain('Link your account');
    expect(JSON.parse(String(pushed.view.private_metadata))).toMatchObject({
      command: 'findApprovals',
      replay: { kind: 'details', viewId: refused.viewId, state: { approvalId: id } },
    });
    const after = counts().update;
    await h.submitView('UOLD', pushed.view, 'VPUSHED', {
      [LINK_FIELDS.username.block]: 'ada.lovelace',
      [LINK_FIELDS.password.block]: 'demo',
    });
    expect((await updateOf('VPUSHED', after, 'Linked')).text).toContain('Linked: countersign can list your approvals');
    expect((await updateOf(refused.viewId ?? '', after)).text).toContain('What the request asks for');
  });

  it('when the service does not offer getApprovalDetails, says so in one sentence, and Details stops being offered', async () => {
    h.service.setQuirks({ disabledCommands: ['getApprovalDetails'] });
    try {
      const { answer } = await adaPage();
      const shown = await clickDetails('UADA', detailsButtons(answer)[0]?.value);
      expect(shown.text).toContain(
        'This Command Service does not offer approval details (its administrators have switched them off), so countersign stops offering Details for now; Open in the service shows it there.',
      );
      expect(shown.text).toContain('[Open in the service]');
      const { answer: later } = await adaPage();
      expect(detailsButtons(later)).toEqual([]);
      expect(buttonsOf(later).map((b) => b.action_id)).toContain('approval:open');
      expect(buttonsOf(later).map((b) => b.action_id)).toContain(PAGE_ACTIONS.next);
      // Not an error of the user's: logged at info, and no "something went wrong".
      expect(shown.text).not.toMatch(/went wrong|Reference/);
    } finally {
      h.service.setQuirks({});
    }
  });

  it('leaves no token in any log line of this run', () => {
    const all = h.logs.join('\n');
    for (const t of h.service.demoTokens) expect(all).not.toContain(t.token);
    expect(all).toContain('command not offered');
    // The modals carry a response_url in their metadata, which Bolt's debug lines quote.
    expect(all).not.toMatch(/\/response\/r\d+/);
  });
});
