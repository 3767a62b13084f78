/** Linking an account from Slack: the modal, loginUser or a pasted token, and what is kept. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { LINK_FIELDS, LINK_WAY_ACTION, RELINK_ACTION } from '../../src/render/link.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, textOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';
import { visible } from '../helpers/visible.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const PASSWORD = 'demo';
const lastUpdate = async (count: number) => {
  await eventually(`views.update #${count}`, () => viewsSent(h.slack, 'views.update').length >= count, 5000);
  const updates = viewsSent(h.slack, 'views.update');
  expect(updates.length).toBeGreaterThanOrEqual(count);
  return JSON.stringify(updates[updates.length - 1]?.view);
};

async function openModal(userId: string, slash: '/approvals' | '/collect' = '/approvals') {
  const before = viewsSent(h.slack, 'views.open').length;
  const sent = await h.command(userId, slash, 'login');
  expect(sent.status).toBe(200);
  await eventually('views.open', () => viewsSent(h.slack, 'views.open').length !== before, 5000);
  const opened = viewsSent(h.slack, 'views.open').at(-1);
  expect(opened?.triggerId).toMatch(/^1234\./);
  return opened?.view ?? {};
}

/** "Paste a token instead" (or back): the click in the modal, and the form it is redrawn as. */
async function switchWay(userId: string, view: Record<string, unknown>, viewId: string, to: 'token' | 'sign-in') {
  const before = viewsSent(h.slack, 'views.update').length;
  const sent = await h.clickInView(userId, view, viewId, LINK_WAY_ACTION, to);
  expect(sent.status).toBe(200);
  await eventually('the other form drawn', () => viewsSent(h.slack, 'views.update').length > before, 5000);
  const update = viewsSent(h.slack, 'views.update').at(-1);
  expect(update?.viewId).toBe(viewId);
  return update?.view ?? {};
}

type Input = { type: string; block_id?: string; optional?: boolean; label?: { text: string }; hint?: { text: string } };
const inputs = (view: Record<string, unknown>) =>
  (view.blocks as Input[]).filter((b) => b.type === 'input').map((b) => [b.label?.text, b.optional ? 'optional' : 'needed']);

describe('linking from Slack', () => {
  it('asks in each form for what that way needs, says the password shows as typed, and switches between the two ways', async () => {
    const view = await openModal('UWAYS');
    // Username and password are needed, so Slack does not mark them "(optional)"; the source alone is.
    expect(inputs(view)).toEqual([
      ['Username', 'needed'],
      ['Password', 'needed'],
      ['Authentication source', 'optional'],
    ]);
    const password = (view.blocks as Input[]).find((b) => b.block_id === LINK_FIELDS.password.block);
    expect(password?.hint?.text).toContain('Slack cannot hide a password: it shows here as you type it, to you alone.');
    expect(visible(view.blocks as never)).toContain('Sign in with your Command Service username and password, or paste a token');
    expect(visible(view.blocks as never)).toContain('[Paste a token instead]');
    expect((view.submit as { text: string }).text).toBe('Sign in');

    const byToken = await switchWay('UWAYS', view, 'VWAYS', 'token');
    expect(inputs(byToken)).toEqual([['Token', 'needed']]);
    expect(visible(byToken.blocks as never)).toContain('[Sign in with a password instead]');
    expect((byToken.submit as { text: string }).text).toBe('Link');
    // What the form carries (the command to link, a query to run once linked) goes with it.
    expect(byToken.private_metadata).toBe(view.private_metadata);
    const back = await switchWay('UWAYS', byToken, 'VWAYS', 'sign-in');
    expect(inputs(back)).toEqual(inputs(view));
  });

  it('signs in with username and password, keeps only the token, and the user can use /approvals', async () => {
    const view = await openModal('ULOGIN');
    expect(JSON.stringify(view)).toContain('Link your account');
    const updatesBefore = viewsSent(h.slack, 'views.update').length;
    const sent = await h.submitView('ULOGIN', view, 'VLOGIN1', {
      [LINK_FIELDS.username.block]: 'ada.lovelace',
      [LINK_FIELDS.password.block]: PASSWORD,
    });
    expect(sent.status).toBe(200);
    expect(JSON.parse(sent.body)).toMatchObject({ response_action: 'update' });
    const done = await lastUpdate(updatesBefore + 1);
    expect(done).toContain('Linked: countersign can list your approvals and start collections for you.');
    // Signed in, not a token: the words say so.
    expect(done).toContain('You are signed in');
    expect(done).not.toContain('accepted the token');
    const links = (await h.app.deps.store.listLinks()).filter((l) => l.userId === 'ULOGIN');
    expect(links.map((l) => [l.command, l.source])).toEqual([
      ['collectEntitlements', 'login'],
      ['findApprovals', 'login'],
    ]);
    const approvals = await h.command('ULOGIN', '/approvals', 'page-size:3');
    expect(textOf((await h.slack.waitForResponses(approvals.responseId, 1))[0])).toContain('Pending approvals');
  });

  it('names the account signed in as, with its source, in whoami and on Home, and never the password', async () => {
    const view = await openModal('UNADIA');
    const before = viewsSent(h.slack, 'views.update').length;
    await h.submitView('UNADIA', view, 'VNADIA', {
      [LINK_FIELDS.username.block]: 'katherine.johnson',
      [LINK_FIELDS.password.block]: PASSWORD,
      [LINK_FIELDS.authsource.block]: 'corp-ldap',
    });
    expect(await lastUpdate(before + 1)).toContain('You are signed in');
    const sent = await h.command('UNADIA', '/approvals', 'whoami');
    const text = textOf((await h.slack.waitForResponses(sent.responseId, 1))[0]);
    expect(text).toMatch(
      /To list your approvals: linked by signing in as `katherine\.johnson` \(corp-ldap\) on \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/,
    );
    const published = h.slack.apiCalls.filter((c) => c.method === 'views.publish').length;
    await h.event('UNADIA', { type: 'app_home_opened', channel: 'D1', tab: 'home', event_ts: '9.1' });
    await eventually('Home published', () => h.slack.apiCalls.filter((c) => c.method === 'views.publish').length > published, 5000);
    const home = JSON.parse(
      new URLSearchParams(h.slack.apiCalls.filter((c) => c.method === 'views.publish').at(-1)?.body ?? '').get('view') ?? '{}',
    );
    expect(visible(home.blocks)).toMatch(
      /To list your approvals: linked as `katherine\.johnson` \(corp-ldap\) on \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/,
    );
  });

  it('shows a wrong password in the modal, never echoing it, and links nothing', async () => {
    const view = await openModal('UWRONG');
    const before = viewsSent(h.slack, 'views.update').length;
    await h.submitView('UWRONG', view, 'VWRONG', {
      [LINK_FIELDS.username.block]: 'ada.lovelace',
      [LINK_FIELDS.password.block]: 'Hunter2-secret',
    });
    const shown = await lastUpdate(before + 1);
    expect(shown).toContain('did not accept that username and password');
    // No source was given: the answer says a directory user needs one.
    expect(shown).toContain('fill in the authentication source too');
    // What was typed comes back, so that only the password needs typing again; the password never does.
    const inputs =
      (viewsSent(h.slack, 'views.update').at(-1)?.view.blocks as Array<{ block_id?: string; element?: { initial_value?: string } }>) ?? [];
    expect(inputs.find((b) => b.block_id === LINK_FIELDS.username.block)?.element?.initial_value).toBe('ada.lovelace');
    expect(inputs.find((b) => b.block_id === LINK_FIELDS.password.block)?.element?.initial_value).toBeUndefined();
    expect(JSON.stringify(h.slack.apiCalls)).not.toContain('Hunter2-secret');
    expect(h.logs.join('\n')).not.toContain('Hunter2-secret');
    expect((await h.app.deps.store.listLinks()).filter((l) => l.userId === 'UWRONG')).toEqual([]);
  });

  it('clears the service’s old answer when the form is sent again: only the new problem shows', async () => {
    const view = await openModal('UAGAIN');
    const before = viewsSent(h.slack, 'views.update').length;
    await h.submitView('UAGAIN', view, 'VAGAIN', {
      [LINK_FIELDS.username.block]: 'ada.lovelace',
      [LINK_FIELDS.password.block]: 'not-the-password',
    });
    expect(await lastUpdate(before + 1)).toContain('did not accept that username and password');
    const shown = viewsSent(h.slack, 'views.update').at(-1)?.view ?? {};
    // Sent again from that view, with the password left out this time.
    const sent = await h.submitView('UAGAIN', shown, 'VAGAIN', { [LINK_FIELDS.username.block]: 'ada.lovelace' });
    const body = JSON.parse(sent.body) as { response_action: string; view?: unknown; errors?: unknown };
    expect(body.response_action).toBe('update');
    const now = JSON.stringify(body.view);
    expect(now).not.toContain('did not accept');
    expect(now).toContain('Give the password too.');
    const inputs = (body.view as { blocks: Array<{ block_id?: string; element?: { initial_value?: string } }> }).blocks;
    expect(inputs.find((b) => b.block_id === LINK_FIELDS.username.block)?.element?.initial_value).toBe('ada.lovelace');
    // A first form with nothing wrong before it keeps Slack's errors under each field.
    const fresh = await h.submitView('UAGAIN', view, 'VAGAIN2', { [LINK_FIELDS.username.block]: 'ada.lovelace' });
    expect(JSON.parse(fresh.body)).toMatchObject({ response_action: 'errors' });
  });

  it('checks a pasted token with a harmless call before saving it', async () => {
    const view = await switchWay('UPASTE', await openModal('UPASTE'), 'VPASTE', 'token');
    const before = viewsSent(h.slack, 'views.update').length;
    await h.submitView('UPASTE', view, 'VPASTE', { [LINK_FIELDS.token.block]: h.demoToken('expired') });
    expect(await lastUpdate(before + 1)).toContain('did not accept that token');
    await h.submitView('UPASTE', view, 'VPASTE', { [LINK_FIELDS.token.block]: h.demoToken('approver') });
    expect(await lastUpdate(before + 2)).toContain(
      'Linked: countersign can list your approvals for you. The Command Service accepted the token.',
    );
    expect((await h.app.deps.store.listLinks()).filter((l) => l.userId === 'UPASTE').map((l) => [l.command, l.source])).toEqual([
      ['findApprovals', 'pasted'],
    ]);
  });

  it('saves a collectEntitlements token unchecked, since checking would start work', async () => {
    const calls = h.service.calls.get('collectEntitlements') ?? 0;
    const view = await switchWay('UOPSPASTE', await openModal('UOPSPASTE', '/collect'), 'VOPS', 'token');
    const before = viewsSent(h.slack, 'views.update').length;
    await h.submitView('UOPSPASTE', view, 'VOPS', { [LINK_FIELDS.token.block]: h.demoToken('ops') });
    expect(await lastUpdate(before + 1)).toContain('It will be checked the first time you use it.');
    expect(h.service.calls.get('collectEntitlements') ?? 0).toBe(calls);
  });

  it('answers an incomplete form inside the modal, without calling the service', async () => {
    const view = await openModal('UFORM');
    const logins = h.service.calls.get('loginUser') ?? 0;
    for (const [values, block, message] of [
      [{}, LINK_FIELDS.username.block, 'Give your username and password.'],
      [{ [LINK_FIELDS.username.block]: 'ada' }, LINK_FIELDS.password.block, 'Give the password too.'],
      [{ [LINK_FIELDS.password.block]: 'pw-only-9' }, LINK_FIELDS.username.block, 'Give the username that goes with the password.'],
      // Sent with a token too (a form of an earlier version had both): said under a field the form has.
      [
        { [LINK_FIELDS.username.block]: 'ada', [LINK_FIELDS.password.block]: 'pw', [LINK_FIELDS.token.block]: 'tok' },
        LINK_FIELDS.username.block,
        'not both',
      ],
    ] as const) {
      const sent = await h.submitView('UFORM', view, 'VFORM', values);
      const body = JSON.parse(sent.body) as { response_action: string; errors: Record<string, string> };
      expect(body.response_action).toBe('errors');
      expect(body.errors[block]).toContain(message);
      expect(sent.body).not.toContain('pw-only-9');
    }
    const byToken = await switchWay('UFORM', view, 'VFORM', 'token');
    for (const [values, block, message] of [
      [{}, LINK_FIELDS.token.block, 'Paste the token the Command Service gave you.'],
      [{ [LINK_FIELDS.token.block]: 'two words' }, LINK_FIELDS.token.block, 'without spaces'],
    ] as const) {
      const sent = await h.submitView('UFORM', byToken, 'VFORM', values);
      const body = JSON.parse(sent.body) as { response_action: string; errors: Record<string, string> };
      expect(body.response_action).toBe('errors');
      expect(body.errors[block]).toContain(message);
      expect(sent.body).not.toContain('pw-only-9');
    }
    expect(h.service.calls.get('loginUser') ?? 0).toBe(logins);
  });
});

let loginToken: string | undefined;

describe('App Home', () => {
  async function published(userId: string) {
    const before = h.slack.apiCalls.filter((c) => c.method === 'views.publish').length;
    const sent = await h.event(userId, { type: 'app_home_opened', channel: 'D1', tab: 'home', event_ts: '1.2' });
    expect(sent.status).toBe(200);
    await eventually('views.publish', () => h.slack.apiCalls.filter((c) => c.method === 'views.publish').length !== before, 5000);
    const call = h.slack.apiCalls.filter((c) => c.method === 'views.publish').at(-1);
    const params = new URLSearchParams(call?.body ?? '');
    expect(params.get('user_id')).toBe(userId);
    return JSON.parse(params.get('view') ?? '{}') as { type: string; blocks: Array<Record<string, unknown>> };
  }

  it('shows an unlinked user how to link, with a button that opens the sign-in modal', async () => {
    const view = await published('UHOMELESS');
    expect(view.type).toBe('home');
    expect(JSON.stringify(view)).toContain('Welcome to countersign');
    expect(JSON.stringify(view)).not.toContain('Your approvals');
    const link = (
      view.blocks.find((b) => b.type === 'actions') as { elements: Array<{ action_id: string; value: string; text: { text: string } }> }
    ).elements[0];
    expect(link?.text.text).toBe('Link your account');
    const opens = viewsSent(h.slack, 'views.open').length;
    await h.click('UHOMELESS', link?.action_id ?? '', link?.value);
    await eventually('views.open', () => viewsSent(h.slack, 'views.open').length !== opens, 5000);
    expect(JSON.stringify(viewsSent(h.slack, 'views.open').at(-1)?.view)).toContain('Link your account');
  });

  const actionIds = (view: { blocks: Array<Record<string, unknown>> }) =>
    view.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => (b.elements as Array<{ action_id: string; value: string }>).map((e) => e));
  const ids = (text: string) => [...text.matchAll(/`(\d+:[A-Z]+:\d+)`/g)].map((m) => m[1]);

  it('shows a linked approver her pending approvals by group, each counted, with Refresh, Link again and Unlink', async () => {
    await h.link('UHOMED', 'approver+ops');
    const view = await published('UHOMED');
    const text = visible(view.blocks);
    expect(text).toMatch(
      /\*\d+\+? pending\* · :red_circle: \*\d+\+? overdue\* · \d+\+? due today · \d+\+? due by \w{3} \d{1,2} \w{3} · \d+\+? due later/,
    );
    expect(text).toMatch(/To start collections: linked on \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/);
    // The demo data has approvals weeks overdue and weeks ahead, whatever the day: both groups are shown, within Home's 20.
    for (const title of [':red_circle: *Overdue*', ':large_blue_circle: *Due later*']) expect(text).toContain(title);
    const shown = ids(text);
    expect(shown.length).toBeGreaterThan(3);
    expect(shown.length).toBeLessThanOrEqual(20);
    expect(actionIds(view).map((e) => e.action_id)).toEqual([
      ...Array(shown.length).fill(DETAILS_ACTIONS.open),
      'home:refresh',
      RELINK_ACTION,
      'home:unlink',
    ]);
    expect(text).toMatch(/…and \d+\+? more due later: `\/approvals due-after:3d` lists them\./);
    // A Next from a view published before Home showed groups: the tab again, as it is now.
    const before = h.slack.apiCalls.filter((c) => c.method === 'views.publish').length;
    await h.click('UHOMED', 'home:next', '2');
    await eventually('views.publish', () => h.slack.apiCalls.filter((c) => c.method === 'views.publish').length !== before, 5000);
    const again = new URLSearchParams(h.slack.apiCalls.filter((c) => c.method === 'views.publish').at(-1)?.body ?? '').get('view') ?? '';
    expect(ids(visible((JSON.parse(again) as { blocks: unknown[] }).blocks as never))).toEqual(shown);
  });

  it('says so on Home when the token has expired, with Link again', async () => {
    await h.link('UHOMEOLD', 'expired', ['findApprovals']);
    const view = await published('UHOMEOLD');
    expect(JSON.stringify(view)).toContain('not valid or has expired');
    expect(actionIds(view).map((e) => e.action_id)).toEqual(['home:refresh', RELINK_ACTION, 'home:unlink']);
    expect(JSON.stringify(view)).toContain('the service refused it last time');
  });
});

describe('re-linking in one click, whoami and logout', () => {
  it('offers Link again on an expired token, and after linking runs the original query in place of the error', async () => {
    await h.link('URELINK', 'expired', ['findApprovals']);
    const sent = await h.command('URELINK', '/approvals', 'completed page-size:3');
    const [error] = await h.slack.waitForResponses(sent.responseId, 1);
    expect(textOf(error)).toContain('not valid or has expired');
    const button = buttonsOf(error).find((b) => b.action_id === RELINK_ACTION);
    expect(button?.text).toBe('Link again');

    const opensBefore = viewsSent(h.slack, 'views.open').length;
    const responseUrl = h.slack.responseUrl();
    await h.click('URELINK', RELINK_ACTION, button?.value, { responseUrl });
    await eventually('views.open', () => viewsSent(h.slack, 'views.open').length !== opensBefore, 5000);
    const view = viewsSent(h.slack, 'views.open').at(-1)?.view ?? {};
    expect(JSON.parse(String(view.private_metadata))).toMatchObject({
      command: 'findApprovals',
      replay: { kind: 'approvals', query: { state: 'completed', 'page-size': 3 } },
    });

    await h.submitView('URELINK', view, 'VRELINK', {
      [LINK_FIELDS.username.block]: 'ada.lovelace',
      [LINK_FIELDS.password.block]: PASSWORD,
    });
    const [replayed] = await h.slack.waitForResponses(responseUrl.id, 1);
    expect(replayed?.replace_original).toBe(true);
    expect(textOf(replayed)).toContain('Completed approvals');
  });

  it('refuses a tampered replay: the modal links, but nothing runs that would not pass as typed', async () => {
    const view = {
      type: 'modal',
      callback_id: 'link-account',
      private_metadata: JSON.stringify({
        command: 'findApprovals',
        replay: { kind: 'approvals', query: { 'page-size': 99999 } },
        responseUrl: h.slack.responseUrl().url,
      }),
    };
    const before = viewsSent(h.slack, 'views.update').length;
    const calls = h.service.calls.get('findApprovals') ?? 0;
    await h.submitView('UTAMPER', view, 'VTAMPER', {
      [LINK_FIELDS.username.block]: 'ada.lovelace',
      [LINK_FIELDS.password.block]: PASSWORD,
    });
    expect(await lastUpdate(before + 1)).toContain('Linked');
    await settled(h);
    expect(h.service.calls.get('findApprovals') ?? 0).toBe(calls);
  });

  it('says what is linked with whoami, never the token', async () => {
    const sent = await h.command('ULOGIN', '/collect', 'whoami');
    const [answer] = await h.slack.waitForResponses(sent.responseId, 1);
    const text = textOf(answer);
    // The account signed in as, never the password; a time as Slack draws it for the reader.
    expect(text).toMatch(
      /To list your approvals: linked by signing in as `ada\.lovelace` on \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC; last call succeeded on \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/,
    );
    expect(text).toMatch(/To start collections: linked by signing in as `ada\.lovelace` .*; not used yet/);
    expect(JSON.stringify(answer)).not.toMatch(/ws[0-9a-f]{12}:-/);
    const none = await h.command('UNOBODY2', '/approvals', 'whoami');
    expect(textOf((await h.slack.waitForResponses(none.responseId, 1))[0])).toContain(
      'To list your approvals: not linked. Type `/approvals login`',
    );
  });

  it('logs out: ends the login session at the service and forgets the tokens', async () => {
    const token = (await h.app.deps.store.getToken({ teamId: 'T0001', userId: 'ULOGIN' }, 'findApprovals'))?.token;
    expect(token).toBeDefined();
    const logouts = h.service.calls.get('logoutUser') ?? 0;
    const sent = await h.command('ULOGIN', '/approvals', 'logout');
    expect(textOf((await h.slack.waitForResponses(sent.responseId, 1))[0])).toContain(
      'forgot your 2 tokens and ended your session at the Command Service',
    );
    expect(h.service.calls.get('logoutUser')).toBe(logouts + 1);
    expect(await h.app.deps.store.getToken({ teamId: 'T0001', userId: 'ULOGIN' }, 'findApprovals')).toBeUndefined();
    expect(h.service.tokens.check(token?.reveal(), 'findApprovals').ok).toBe(false);
    loginToken = token?.reveal();
  });

  it('leaves no token and no password in any log line of this run', () => {
    const all = h.logs.join('\n');
    expect(all).toContain('account linked');
    expect(loginToken).toBeDefined();
    for (const secret of [loginToken ?? '', ...h.service.demoTokens.map((t) => t.token), 'Hunter2-secret', 'pw-only-9'])
      expect(all).not.toContain(secret);
    expect(all).not.toMatch(/"password":"(?!\[redacted\])/);
    // The relink modal carries a response_url in its metadata: no line quotes it (the Web API's request
    // bodies are not logged at all, since they carry what users wrote), and none that does is left unredacted.
    expect(all).toContain('http request body: (not logged: it holds what users wrote)');
    expect(all).not.toMatch(/https?:(?:\\?\/){2}[^"\s]*\/response\//);
    expect(all).not.toMatch(/\/response\/r\d+/);
  });
});
