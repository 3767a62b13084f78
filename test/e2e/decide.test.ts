/**
 * Deciding an approval from Slack, end to end: the real app over signed HTTP against the reference
 * service's performWorkItem, Slack's side played on loopback (every view checked as Slack would).
 * Twice: the operator's call as a GET with all in the query, on SQLite, each user's own token; and
 * as a POST with an XML body, on PostgreSQL, in the trusted-application mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_FIELD, DECISION_ACTIONS } from '../../src/render/decision.js';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { actionButtons, deciding, until, type View } from '../helpers/deciding.js';
import { buttonsOf, type ResponseBody, textOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, type HarnessOptions, startHarness } from '../helpers/harness.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';
import { shownExactly, visible } from '../helpers/visible.js';

const URL_TEMPLATE = 'https://igl.example.com/aveksa/main?WorkItemId={WorkItemId}';
const pgAvailable = await postgresAvailable('decisions end to end on PostgreSQL');

interface Setup {
  name: string;
  env: Record<string, string>;
  postgres: boolean;
  trusted: boolean;
}

const SETUPS: Setup[] = [
  {
    name: 'a GET with all in the query, SQLite, users’ own tokens',
    env: { DECISION_REQUEST: 'GET performWorkItem?workitem-id={id}&action={action}&comment={comment}' },
    postgres: false,
    trusted: false,
  },
  {
    name: 'a POST with an XML body, PostgreSQL, the trusted-application mode',
    env: {
      DECISION_REQUEST: 'POST performWorkItem',
      DECISION_REQUEST_BODY: '<workitem-id>{id}</workitem-id><action>{action}</action><comment>{comment}</comment>',
    },
    postgres: true,
    trusted: true,
  },
];

for (const setup of SETUPS) {
  describe.skipIf(setup.postgres && !pgAvailable)(`deciding from Slack with ${setup.name}`, () => {
    let h: Harness;
    let dropSchema: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      // One approver clicks and submits more than a person would in a minute here: no rate limit.
      const env: Record<string, string> = { APPROVAL_URL_TEMPLATE: URL_TEMPLATE, COMMANDS_PER_MINUTE: '0', ...setup.env };
      if (setup.postgres) {
        const schema = await freshSchema();
        env.DATABASE_URL = schema.url;
        dropSchema = schema.drop;
      }
      const options: HarnessOptions = {
        env,
        // Short enough that "the service did not answer in time" is a second or two, long enough for a loaded machine.
        serviceTimeouts: { totalMs: 2_000 },
        ...(setup.trusted ? { trusted: {} } : {}),
      };
      h = await startHarness(options);
      if (setup.trusted) {
        await h.map('UADA', 'ada.lovelace');
        await h.map('UGRACE', 'grace.hopper');
      } else {
        await h.link('UADA', 'approver');
        await h.link('UGRACE', 'approver+ops');
      }
    });
    afterAll(async () => {
      await h?.close();
      await dropSchema?.();
    });

    const { decidable, counts, openedViewId, updateOf, performed, decisionRow, openDetails, choose, submit } = deciding(() => h);

    it('approves in three clicks: Details, the action, its Send; the service gets the call once, and the list and the modal say so', async () => {
      const { id, actions } = decidable();
      const action = actions[0] as string;
      const details = await openDetails('UADA', id);
      expect(actionButtons(details.view).map((b) => b.text)).toEqual(actions.map((a) => `Decide: ${a}`));
      expect(details.text).toContain('[Open in the service]');
      const confirm = await choose('UADA', details, action);
      const words = visible(confirm.blocks);
      expect(words).toContain(`You are deciding this approval as *${action}*:`);
      expect(words).toContain(`Approval id \`${id}\``);
      expect(words).toContain('requested by');
      expect(confirm.submit).toEqual({ type: 'plain_text', text: `Send: ${action}` });
      expect(performed()).toBe(0);

      const { ack, outcome } = await submit('UADA', confirm, '');
      expect(ack.response_action).toBe('update');
      expect(visible(ack.view?.blocks)).toContain(`Sending *${action}* to the Command Service`);
      const done = await outcome();
      expect(done.text).toContain(`Done: the Command Service took your decision, *${action}*`);
      expect(done.text).toContain(`It shows it completed as *${action}*`);
      expect(done.text).toContain('[Open in the service]');
      expect(performed()).toBe(1);
      expect(decisionRow(id)).toEqual({ action, comment: '', decided_by: 'ada.lovelace' });

      // The list the approval was on, in place: the row says so, with no buttons.
      const replaced = await h.slack.waitForResponses(details.responseUrl.id, 2);
      const page = replaced[1] as ResponseBody;
      expect(page.replace_original).toBe(true);
      expect(textOf(page)).toMatch(
        // Written as the rest of the page writes times: in the reader's zone, named.
        new RegExp(`:white_check_mark: \\*${action}\\* by you from Slack, \\w{3} \\d{1,2} \\w{3} \\d{4}, \\d{2}:\\d{2} (UTC|[^\\n]+ time)`),
      );
      expect(buttonsOf(page).filter((b) => b.action_id === DETAILS_ACTIONS.open)).toEqual([]);
      // The Details underneath: decided, no buttons offered again.
      const underneath = await updateOf(details.viewId, 0, 'by you');
      expect(actionButtons(underneath.view)).toEqual([]);
      // And the audit trail has every step, with who, the action and the comment.
      const [record] = await h.app.deps.store.listDecisions({ limit: 1 });
      expect(record).toMatchObject({ userId: 'UADA', approvalId: id, action, comment: '', outcome: 'done' });
      expect(record?.steps.map((s) => s.step)).toEqual(['asked', 'confirmed', 'sent', 'answered']);
      expect(record?.steps[1]?.requestId).toMatch(/^.{12}$/);
    });

    it('asks the service at most four times from the submission to the redrawn modal and list: the check, the call, one read after', async () => {
      const { id, actions } = decidable();
      const action = actions[0] as string;
      // The Details click with a response_url of its own, as Slack gives each interaction.
      const details = await openDetails('UADA', id, { ownClickUrl: true });
      const confirm = await choose('UADA', details, action);
      const calls = () => new Map(h.service.calls);
      const before = calls();
      const updates = counts().update;
      const { outcome } = await submit('UADA', confirm, 'counted');
      expect((await outcome()).text).toContain('Done:');
      // The list it came from, and the Details underneath, drawn again as decided.
      const [redrawn] = await h.slack.waitForResponses(details.responseUrl.id, 1);
      expect((redrawn as ResponseBody).replace_original).toBe(true);
      expect(textOf(redrawn as ResponseBody)).toContain(`*${action}* by you`);
      await updateOf(details.viewId, updates, 'by you');
      await h.app.deps.background.drain();
      const used = [...calls()].map(([command, n]) => [command, n - (before.get(command) ?? 0)] as const).filter(([, n]) => n > 0);
      expect(Object.fromEntries(used)).toEqual({ getApprovalDetails: 2, findApprovals: 1, performWorkItem: 1 });
    });

    it('rejects only with a comment: an empty one is refused in the modal, and nothing is sent', async () => {
      const { id, actions } = decidable();
      const reject = actions.find((a) => a === 'Rejected');
      if (reject === undefined) return void expect(actions).toContain('Rejected');
      const details = await openDetails('UADA', id);
      const confirm = await choose('UADA', details, reject);
      const calls = performed();
      expect(visible(confirm.blocks)).toContain('Comment (needed for Rejected)');
      const empty = await submit('UADA', confirm, '   ');
      expect(empty.ack).toEqual({
        response_action: 'errors',
        errors: { [COMMENT_FIELD.block]: 'Rejected needs a comment: say why, for the requester and the audit trail.' },
      });
      const hostile = await submit('UADA', confirm, 'see \u202Etxt.exe');
      expect(hostile.ack.response_action).toBe('errors');
      expect(performed()).toBe(calls);
      expect(await h.app.deps.store.decisionHolds([id])).toEqual(new Map());
      expect(decisionRow(id)).toBeUndefined();
      const comment = 'Not needed: <!channel> *moved* to `Finance` & https://evil.example';
      const { outcome } = await submit('UADA', confirm, comment);
      const result = await outcome();
      expect(result.text).toContain('Done: the Command Service took your decision, *Rejected*');
      // The comment as it was sent, repeated exactly: never a ping, a link or formatting.
      expect(result.text).toContain('*Your comment, as sent:*');
      expect(shownExactly(result.view.blocks, comment)).toBe(true);
      expect(decisionRow(id)).toEqual({ action: 'Rejected', comment, decided_by: 'ada.lovelace' });
      const [record] = await h.app.deps.store.listDecisions({ limit: 1 });
      expect(record?.comment).toBe(comment);
    });

    it('sends one call for a confirmation submitted twice at once, and for two confirmations of one approval', async () => {
      const { id, actions } = decidable();
      const before = performed();
      const details = await openDetails('UADA', id);
      const first = await choose('UADA', details, actions[0] as string);
      const second = await choose('UADA', details, actions[0] as string);
      const [a, b, c] = await Promise.all([
        submit('UADA', first, 'once', 'VTWICE1'),
        submit('UADA', first, 'once', 'VTWICE2'),
        submit('UADA', second, 'again', 'VTWICE3'),
      ]);
      const texts = await Promise.all([a, b, c].map(async (s) => (await s.outcome()).text));
      expect(performed()).toBe(before + 1);
      expect(texts.filter((t) => t.includes('Done: the Command Service took your decision'))).toHaveLength(1);
      expect(
        texts.filter((t) => t.includes('Done:')).length +
          texts.filter((t) => /submitted twice|being sent right now|not decided twice/.test(t)).length,
      ).toBe(3);
    });

    it('another user’s click on Ada’s Details offers them nothing to decide, and a confirmation forged for Ada’s approval sends nothing', async () => {
      const { id, actions } = decidable();
      const details = await openDetails('UADA', id);
      const before = counts();
      await h.click('UGRACE', DETAILS_ACTIONS.open, details.pageValue);
      await until('views.open', () => viewsSent(h.slack, 'views.open')[before.open]);
      const graces = await updateOf(openedViewId(before.open), before.update);
      // Never on a list of hers: not "no longer visible", but none that she can see.
      expect(graces.text).toContain(`The Command Service has no approval \`${id}\` that you can see.`);
      expect(graces.text).not.toContain('no longer visible');
      expect(actionButtons(graces.view)).toEqual([]);
      // Grace submits Ada's confirmation, as if she had it: her own credentials are asked, and the service will not show it to her.
      const confirm = await choose('UADA', details, actions[0] as string);
      const calls = performed();
      const { outcome } = await submit('UGRACE', confirm, 'mine now');
      expect((await outcome()).text).toContain(`The Command Service has no approval \`${id}\` that you can see`);
      expect(performed()).toBe(calls);
      expect(decisionRow(id)).toBeUndefined();
    });

    it('answers an action button it cannot read (forged, or from another version) in the modal, and sends nothing', async () => {
      const { id } = decidable();
      const details = await openDetails('UADA', id);
      const before = counts();
      await h.clickInView('UADA', details.view, details.viewId, DECISION_ACTIONS.choose[0] as string, '{"x":"Rejected\u202e"}');
      expect((await updateOf(details.viewId, before.update, 'no longer works')).text).toContain('This button no longer works');
      expect(counts().push).toBe(before.push);
      expect(decisionRow(id)).toBeUndefined();
    });

    it('sends nothing for an action the service does not list (a forged button or edited metadata)', async () => {
      const { id, actions } = decidable();
      const details = await openDetails('UADA', id);
      const confirm = await choose('UADA', details, actions[0] as string);
      const forged = { ...confirm, private_metadata: String(confirm.private_metadata).replace(`"x":"${actions[0]}"`, '"x":"Escalated"') };
      expect(forged.private_metadata).toContain('"x":"Escalated"');
      const calls = performed();
      const { outcome } = await submit('UADA', forged, 'forged');
      const text = (await outcome()).text;
      expect(text).toContain('The service does not offer *Escalated* for this approval now.');
      expect(text).toContain('Nothing was sent to the Command Service.');
      expect(performed()).toBe(calls);
      // The approval was given back: the real action still works.
      const { outcome: real } = await submit('UADA', confirm, 'the real one');
      expect((await real()).text).toContain('Done:');
    });

    it('says an approval decided meanwhile in the service is decided, and sends nothing', async () => {
      const { id, actions } = decidable();
      const details = await openDetails('UADA', id);
      const confirm = await choose('UADA', details, actions[0] as string);
      h.service.db
        .prepare("UPDATE approvals SET state = 'completed', completed_at = '2026-11-20 10:00:00.0' WHERE work_item_id = ?")
        .run(id);
      const calls = performed();
      const { outcome } = await submit('UADA', confirm, 'late');
      const text = (await outcome()).text;
      expect(text).toContain('It is decided already: the service shows it completed');
      expect(text).toContain('Nothing was sent to the Command Service.');
      expect(performed()).toBe(calls);
    });

    it('a timeout whose call did land: sent once, never again, and the approver is told what the service now shows', async () => {
      const { id, actions } = decidable();
      const action = actions[0] as string;
      const details = await openDetails('UADA', id);
      const confirm = await choose('UADA', details, action);
      h.service.setQuirks({ lateAnswers: { performWorkItem: 3_000 } });
      try {
        const calls = performed();
        const { outcome } = await submit('UADA', confirm, 'slow day');
        const text = (await outcome()).text;
        expect(text).toContain(
          `The Command Service did not answer in time, but it shows the approval completed as *${action}* now, the action you sent.`,
        );
        expect(text).toContain(`It shows it completed as *${action}*`);
        expect(text).not.toMatch(/went through|by you/);
        expect(performed()).toBe(calls + 1);
        expect(decisionRow(id)?.comment).toBe('slow day');
        const [record] = await h.app.deps.store.listDecisions({ limit: 1 });
        // The very action sent, but not necessarily by this approver: recorded unknown, with what it shows.
        expect(record).toMatchObject({
          outcome: 'unknown',
          answer: { result: 'unknown', error: 'service-unavailable', seen: { pending: false, state: action } },
        });
        // The same confirmation submitted again sends nothing: the service shows it decided.
        const again = await submit('UADA', confirm, 'again');
        expect((await again.outcome()).text).toContain('Nothing was sent');
        expect(performed()).toBe(calls + 1);
      } finally {
        h.service.setQuirks({});
      }
    });

    it('from Home: decided through Details, Home is published again with the row saying so', async () => {
      await h.event('UADA', { type: 'app_home_opened', channel: 'D1', tab: 'home', event_ts: '1.2' });
      const published = () => h.slack.apiCalls.filter((c) => c.method === 'views.publish');
      const first = await until('views.publish', () => published().at(-1));
      const home = JSON.parse(new URLSearchParams(first.body).get('view') ?? '{}') as View;
      const detailsValues = (home.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value?: string }> }>)
        .flatMap((b) => b.elements ?? [])
        .filter((e) => e.action_id === DETAILS_ACTIONS.open)
        .map((e) => e.value as string);
      // The first on Home that can be decided whole here.
      let opened: { viewId: string; view: View; text: string } | undefined;
      for (const value of detailsValues) {
        const before = counts();
        await h.clickOnHome('UADA', DETAILS_ACTIONS.open, value);
        await until('views.open', () => viewsSent(h.slack, 'views.open')[before.open]);
        const viewId = openedViewId(before.open);
        const shown = await updateOf(viewId, before.update);
        if (actionButtons(shown.view).length >= 2) {
          opened = { viewId, ...shown };
          break;
        }
      }
      if (opened === undefined) throw new Error('nothing on Home to decide');
      const id = (JSON.parse(String(opened.view.private_metadata)) as { a: string }).a;
      const action = (actionButtons(opened.view)[0]?.text ?? '').replace(/^Decide: /, '');
      const publishes = published().length;
      const confirm = await choose('UADA', opened, action);
      const { outcome } = await submit('UADA', confirm, 'from Home');
      expect((await outcome()).text).toContain('Done:');
      const again = await until('Home published again', () => (published().length > publishes ? published().at(-1) : undefined));
      const text = visible((JSON.parse(new URLSearchParams(again.body).get('view') ?? '{}') as View).blocks);
      expect(text).toContain(`*${action}* by you`);
      expect(text).toContain(id);
      expect(decisionRow(id)?.comment).toBe('from Home');
    });

    // Last but one: once switched off, decisions are not offered again for an hour.
    it('a switched-off decision command: said in one sentence, nothing decided, and decisions stop being offered', async () => {
      const { id, actions } = decidable();
      const details = await openDetails('UADA', id);
      const confirm = await choose('UADA', details, actions[0] as string);
      h.service.setQuirks({ disabledCommands: ['performWorkItem'] });
      try {
        const { outcome } = await submit('UADA', confirm, 'switched off');
        const text = (await outcome()).text;
        expect(text).toContain(
          'This Command Service does not offer decisions (its administrators have switched them off), so countersign stops offering them',
        );
        expect(text).toContain('Nothing was decided.');
        expect(text).toContain('[Open in the service]');
        expect(decisionRow(id)).toBeUndefined();
        const later = await openDetails('UADA', decidable().id);
        expect(actionButtons(later.view)).toEqual([]);
        expect(later.text).toContain('The decision is made in the service: Open in the service.');
      } finally {
        h.service.setQuirks({});
      }
    });

    it('leaves no token in any log line, and no comment either', () => {
      const all = h.logs.join('\n');
      for (const t of h.service.demoTokens) expect(all).not.toContain(t.token);
      expect(all).not.toContain('slow day');
      expect(all).toContain('sending the decision');
    });
  });
}
