/**
 * Clicks and modal submissions count against the per-user rate limit and the in-flight limit as
 * slash commands do: a burst of paging clicks reaches the service only as far as the limit allows,
 * and every click past it is still acked and its user told why, through its response_url; a modal
 * submission past it keeps the modal open with the reason on its first field.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_ACTIONS } from '../../src/render/approvals.js';
import { LINK_FIELDS } from '../../src/render/link.js';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, textOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const LIMIT = 10;
// The limiter's clock stands still, so that none of its buckets refills during the test, however slow the machine.
const clock = new TestClock(new Date());
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { COMMANDS_PER_MINUTE: String(LIMIT) }, now: clock.now, startScheduler: false });
  await h.link('UADA', 'approver');
});
afterAll(() => h.close());

describe('a burst of paging clicks', () => {
  it('reaches the service only as far as the rate limit allows; every other click is acked and told', async () => {
    const asked = await h.command('UADA', '/approvals', 'page-size:100');
    const [page] = await h.slack.waitForResponses(asked.responseId, 1);
    const next = buttonsOf(page).find((b) => b.action_id === PAGE_ACTIONS.next);
    expect(next?.value).toBeDefined();

    const before = h.service.calls.get('findApprovals') ?? 0;
    const clicks = await Promise.all(Array.from({ length: 60 }, () => h.click('UADA', PAGE_ACTIONS.next, next?.value)));
    expect(clicks.map((c) => c.status)).toEqual(Array(60).fill(200));
    const answers = await Promise.all(clicks.map(async (c) => textOf((await h.slack.waitForResponses(c.responseId, 1))[0])));
    const paged = answers.filter((t) => t.includes('Pending approvals · page 2'));
    const told = answers.filter((t) => t.startsWith('Easy there'));
    expect(paged).toHaveLength(LIMIT);
    expect(told).toHaveLength(60 - LIMIT);
    expect(told[0]).toMatch(
      /^Easy there: countersign takes up to 10 clicks and form submissions a minute from one person.*Try again in \d+ s\.$/m,
    );
    expect(h.service.calls.get('findApprovals') ?? 0).toBe(before + LIMIT);
    // A refusal is a new message; the page the user is looking at stays.
    const refusal = clicks.map((c) => h.slack.responses(c.responseId)[0]).find((r) => textOf(r).startsWith('Easy there'));
    expect(refusal).toMatchObject({ response_type: 'ephemeral', replace_original: false });
  });

  it('leaves the same user’s slash commands their own allowance', async () => {
    const sent = await h.command('UADA', '/approvals', 'page-size:1');
    expect(textOf((await h.slack.waitForResponses(sent.responseId, 1))[0])).toContain('Pending approvals');
  });
});

describe('modal submissions past the limit', () => {
  it('keep the modal open and say why on its first field, without reaching the use case', async () => {
    await h.command('UFORM', '/approvals', 'login');
    await eventually('views.open', () => viewsSent(h.slack, 'views.open').length > 0, 5000);
    const view = viewsSent(h.slack, 'views.open').at(-1)?.view ?? {};
    const incomplete = { [LINK_FIELDS.username.block]: 'ada' };
    for (let i = 0; i < LIMIT; i++) {
      const sent = await h.submitView('UFORM', view, 'VFORM', incomplete);
      expect(JSON.parse(sent.body)).toMatchObject({
        response_action: 'errors',
        errors: { [LINK_FIELDS.password.block]: 'Give the password too.' },
      });
    }
    const refused = await h.submitView('UFORM', view, 'VFORM', incomplete);
    expect(refused.status).toBe(200);
    const body = JSON.parse(refused.body) as { response_action: string; errors: Record<string, string> };
    expect(body.response_action).toBe('errors');
    expect(body.errors[LINK_FIELDS.username.block]).toMatch(/^Easy there: countersign takes up to 10 clicks and form submissions a minute/);
  });
});

describe('too much work in flight', () => {
  it('turns a click away at once, acked, and tells its user', async () => {
    const busy = await startHarness({ maxInFlight: 2, startScheduler: false, env: { COMMANDS_PER_MINUTE: '0' } });
    try {
      await busy.link('UADA', 'approver');
      const asked = await busy.command('UADA', '/approvals', 'page-size:2');
      const next = buttonsOf((await busy.slack.waitForResponses(asked.responseId, 1))[0]).find((b) => b.action_id === PAGE_ACTIONS.next);
      busy.service.setDelay(1_000);
      const slow = await Promise.all([1, 2].map(() => busy.click('UADA', PAGE_ACTIONS.next, next?.value)));
      const turned = await busy.click('UADA', PAGE_ACTIONS.next, next?.value);
      expect(turned.status).toBe(200);
      expect(textOf((await busy.slack.waitForResponses(turned.responseId, 1))[0])).toContain(
        'countersign is very busy right now and did not take this click',
      );
      for (const s of slow) expect(textOf((await busy.slack.waitForResponses(s.responseId, 1))[0])).toContain('page 2');
    } finally {
      busy.service.setDelay(0);
      await busy.close();
    }
  });
});
