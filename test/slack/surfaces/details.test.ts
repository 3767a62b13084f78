/**
 * The Details listeners, called as Bolt calls them, with fakes behind them: the order of things
 * (ack, then the loading view with the trigger, then the service, then the update), whose token,
 * and what a click that cannot be read, or a Slack that refuses the view, still gets.
 */

import type { RespondArguments } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { encodeDetailsMetadata, encodeDetailsValue } from '../../../src/render/details-controls.js';
import { InvalidTokenError, UnexpectedResponseError } from '../../../src/service/errors.js';
import {
  detailsButtonAction,
  detailsPageAction,
  detailsRelinkAction,
  detailsSelectAction,
} from '../../../src/slack/handlers/actions/details.js';
import { approvalsCommand } from '../../../src/slack/handlers/commands/approvals.js';
import { eventually } from '../../helpers/eventually.js';
import { failing, fakeDeps, fakeService } from '../../helpers/fakes.js';
import { visible } from '../../helpers/visible.js';

const ID = '10001:WPDS:1';

function build(options: Parameters<typeof fakeDeps>[0] = {}) {
  const t = fakeDeps(options);
  const events = t.fake.events;
  const views: Array<{ method: string; args: Record<string, unknown> }> = [];
  let refuse = false;
  let refusePush = false;
  /** Slack's error for the next views.update calls, in turn. */
  const updateErrors: string[] = [];
  const client = {
    views: {
      open: async (args: Record<string, unknown>) => {
        events.push('views.open');
        views.push({ method: 'open', args });
        if (refuse) throw new Error('An API error occurred: expired_trigger_id');
        return { ok: true, view: { id: 'VDETAILS' } };
      },
      update: async (args: Record<string, unknown>) => {
        events.push('views.update');
        views.push({ method: 'update', args });
        const error = updateErrors.shift();
        // As @slack/web-api throws a refusal: its code, and Slack's answer as data.
        if (error !== undefined)
          throw Object.assign(new Error(`An API error occurred: ${error}`), {
            code: 'slack_webapi_platform_error',
            data: { ok: false, error },
          });
        return { ok: true };
      },
      push: async (args: Record<string, unknown>) => {
        events.push('views.push');
        views.push({ method: 'push', args });
        if (refusePush) throw new Error('An API error occurred: push_limit_reached');
        return { ok: true, view: { id: 'VPUSHED' } };
      },
    },
  };
  const ack = async () => {
    events.push('ack');
  };
  const click = (value: string | undefined, userId = 'UADA', view?: Record<string, unknown>) =>
    ({
      body: {
        user: { id: userId, team_id: 'T1' },
        team: { id: 'T1' },
        trigger_id: 'trig-1',
        ...(view === undefined ? { response_url: 'https://hooks.slack.invalid/r' } : { view }),
      },
      action: { action_id: 'x', value },
      ack,
      client,
    }) as never;
  const text = (i: number) => visible((views[i]?.args.view as { blocks: unknown[] } | undefined)?.blocks);
  const refuseViews = () => {
    refuse = true;
  };
  const refusePushes = () => {
    refusePush = true;
  };
  const refuseUpdates = (...errors: string[]) => {
    updateErrors.push(...errors);
  };
  return { ...t, client, views, click, text, refuseViews, refusePushes, refuseUpdates };
}

const responses = (r: RespondArguments[]) => JSON.stringify(r);

describe('Details', () => {
  it('acks, opens the loading view with the click’s trigger, then asks the service, then updates that view', async () => {
    const t = build();
    await t.link('UADA');
    await detailsButtonAction(t.deps)(t.click(encodeDetailsValue(ID, { kind: 'home' })));
    await t.deps.background.drain();
    expect(t.fake.events).toEqual(['ack', 'views.open', 'service', 'service', 'views.update']);
    expect(t.views[0]?.args.trigger_id).toBe('trig-1');
    expect(t.views[1]?.args.view_id).toBe('VDETAILS');
    expect(t.text(1)).toContain('What the request asks for');
    expect(t.fake.calls.map((c) => 'token' in c && c.token)).toEqual(['token-of-UADA', 'token-of-UADA']);
  });

  it('uses the clicker’s own token, whoever’s page the button was on', async () => {
    const t = build();
    await t.link('UADA');
    await t.link('UEVE');
    const value = encodeDetailsValue(ID, { kind: 'page', owner: 'UADA', query: { 'page-size': 10 } });
    await detailsButtonAction(t.deps)(t.click(value, 'UEVE'));
    await t.deps.background.drain();
    expect(t.fake.calls.map((c) => 'token' in c && c.token)).toEqual(['token-of-UEVE', 'token-of-UEVE']);
  });

  it('opens a modal that says so for a control it cannot read, and calls nothing', async () => {
    const t = build();
    await t.link('UADA');
    await detailsButtonAction(t.deps)(t.click('{"a":"not an id","o":"h"}'));
    await detailsSelectAction(t.deps)({
      ...(t.click(undefined) as object),
      action: { block_id: 'details', selected_option: { value: 'nope' } },
    } as never);
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([]);
    expect(t.text(0)).toContain('This control no longer works');
    expect(t.text(1)).toContain('This control no longer works');
  });

  it('tells the user through the response_url when Slack will not open the view', async () => {
    const t = build();
    await t.link('UADA');
    t.refuseViews();
    await detailsButtonAction(t.deps)(t.click(encodeDetailsValue(ID, { kind: 'digest' })));
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([]);
    expect(responses(t.responses)).toContain('The details could not be opened (Slack said: An API error occurred: expired_trigger_id)');
    expect(responses(t.responses)).toContain(`/approvals show ${ID}`);
  });

  it('never leaves the loading view up when Slack refuses the details: a plain view with a reference instead, and the log says why', async () => {
    const t = build();
    await t.link('UADA');
    t.refuseUpdates('invalid_blocks');
    await detailsButtonAction(t.deps)(t.click(encodeDetailsValue(ID, { kind: 'home' })));
    await t.deps.background.drain();
    expect(t.views.map((v) => [v.method, v.args.view_id])).toEqual([
      ['open', undefined],
      ['update', 'VDETAILS'],
      ['update', 'VDETAILS'],
    ]);
    expect(t.text(2)).toContain('Slack would not show these details');
    const refused = t.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'Slack refused the details view');
    expect(refused).toMatchObject({ level: 'error', slackError: 'invalid_blocks', approval: ID });
    expect(t.text(2)).toContain(`Reference \`${refused.reference}\``);
  });

  it('says plainly that an answer too large to read cannot be shown, without a Try again that could only fail the same way', async () => {
    const huge = new UnexpectedResponseError('body larger than 1048576 bytes', { command: 'getApprovalDetails', status: 200 }, 1024 * 1024);
    const t = build({
      service: fakeService(failing('getApprovalDetails', huge)),
    });
    await t.link('UADA');
    await detailsButtonAction(t.deps)(t.click(encodeDetailsValue(ID, { kind: 'home' })));
    await t.deps.background.drain();
    expect(t.text(1)).toContain('too large for countersign to read (over 1 MiB)');
    expect(t.text(1)).not.toContain('[Try again]');
  });

  it('updates nothing more when the modal was closed meanwhile', async () => {
    const t = build();
    await t.link('UADA');
    t.refuseUpdates('not_found');
    await detailsButtonAction(t.deps)(t.click(encodeDetailsValue(ID, { kind: 'home' })));
    await t.deps.background.drain();
    expect(t.views.map((v) => v.method)).toEqual(['open', 'update']);
    expect(t.logs.join('\n')).not.toMatch(/"level":"(error|warn)"/);
  });

  it('updates the modal only as the click saw it: a newer update that won (hash_conflict) is left alone', async () => {
    const t = build();
    await t.link('UADA');
    const view = {
      id: 'VOPEN',
      hash: '1700000000.abc',
      private_metadata: encodeDetailsMetadata({ approvalId: ID, origin: { kind: 'typed' }, page: 1 }),
    };
    t.refuseUpdates('hash_conflict');
    await detailsPageAction(t.deps)(t.click('2', 'UADA', view));
    await detailsPageAction(t.deps)(t.click('3', 'UADA', view));
    await t.deps.background.drain();
    expect(t.views.map((v) => [v.method, v.args.view_id, v.args.hash])).toEqual([
      ['update', 'VOPEN', '1700000000.abc'],
      ['update', 'VOPEN', '1700000000.abc'],
    ]);
    expect(t.logs.join('\n')).not.toMatch(/"level":"(error|warn)"/);
  });

  it('pages inside the modal from its own state, updating it in place', async () => {
    const t = build();
    await t.link('UADA');
    const view = { id: 'VOPEN', private_metadata: encodeDetailsMetadata({ approvalId: ID, origin: { kind: 'typed' }, page: 1 }) };
    await detailsPageAction(t.deps)(t.click('3', 'UADA', view));
    await t.deps.background.drain();
    expect(t.fake.calls.find((c) => c.command === 'getRequestItems')).toMatchObject({ page: { startPage: 3 } });
    expect(t.views.map((v) => [v.method, v.args.view_id])).toEqual([['update', 'VOPEN']]);
    expect(JSON.parse(String((t.views[0]?.args.view as { private_metadata?: string } | undefined)?.private_metadata))).toMatchObject({
      p: 3,
    });
  });

  it('pages to the last page the modal reads, and answers a page past it as a control that no longer works', async () => {
    const t = build();
    await t.link('UADA');
    const view = { id: 'VOPEN', private_metadata: encodeDetailsMetadata({ approvalId: ID, origin: { kind: 'typed' }, page: 9999 }) };
    await detailsPageAction(t.deps)(t.click('10000', 'UADA', view));
    await t.deps.background.drain();
    expect(t.fake.calls.find((c) => c.command === 'getRequestItems')).toMatchObject({ page: { startPage: 10000 } });
    await detailsPageAction(t.deps)(t.click('10001', 'UADA', view));
    await t.deps.background.drain();
    expect(t.fake.calls.filter((c) => c.command === 'getRequestItems')).toHaveLength(1);
    expect(t.text(1)).toContain('This control no longer works');
  });

  it('pushes the sign-in modal over the details with the click’s trigger, carrying them to show once linked', async () => {
    const t = build();
    const state = { approvalId: ID, origin: { kind: 'typed' as const }, page: 2 };
    await detailsRelinkAction(t.deps)(t.click('relink', 'UADA', { id: 'VOPEN', private_metadata: encodeDetailsMetadata(state) }));
    expect(t.fake.events).toEqual(['ack', 'views.push']);
    const pushed = t.views[0]?.args as { trigger_id: string; view: { callback_id: string; private_metadata: string } };
    expect(pushed.trigger_id).toBe('trig-1');
    expect(pushed.view.callback_id).toBe('link-account');
    expect(JSON.parse(pushed.view.private_metadata)).toEqual({
      command: 'findApprovals',
      replay: { kind: 'details', state: { ...state, responseUrl: undefined }, viewId: 'VOPEN' },
    });
  });

  it('pushes the sign-in form of the installation’s mode: in the trusted mode, no token field', async () => {
    const t = build({ trusted: true });
    const state = { approvalId: ID, origin: { kind: 'typed' as const }, page: 1 };
    await detailsRelinkAction(t.deps)(t.click('link', 'UADA', { id: 'VOPEN', private_metadata: encodeDetailsMetadata(state) }));
    const pushed = t.views[0]?.args as { view: { blocks: Array<{ block_id?: string }> } };
    expect(pushed.view.blocks.map((b) => b.block_id).filter((b) => b !== undefined)).toEqual(['username', 'password', 'authsource']);
    expect(t.text(0)).not.toContain('paste a token');
    expect(t.text(0)).toContain('Sign in once');

    // When Slack will not push it, the way to link said instead is the trusted mode's too.
    t.refusePushes();
    await detailsRelinkAction(t.deps)(t.click('link', 'UADA', { id: 'VOPEN', private_metadata: encodeDetailsMetadata(state) }));
    expect(t.text(2)).toContain('sign in once with your Command Service username and password');
    expect(t.text(2)).not.toMatch(/countersign (users|tokens)|UADA/);
  });

  it('words a failure for the installation’s mode: a token from before the trusted mode is replaced by signing in once', async () => {
    const expired = new InvalidTokenError({ command: 'getApprovalDetails', status: 401, serviceMessage: 'Token is invalid or expired' });
    const t = build({
      trusted: true,
      service: fakeService(failing('getApprovalDetails', expired)),
    });
    await t.link('UADA');
    await detailsButtonAction(t.deps)(t.click(encodeDetailsValue(ID, { kind: 'home' })));
    await t.deps.background.drain();
    expect(t.text(1)).toContain('countersign now acts for you in a way that lasts');
    expect(t.text(1)).toContain('sign in once with your Command Service username and password');
    expect(t.text(1)).not.toMatch(/countersign (users|tokens)|UADA/);
  });

  it('opens /approvals show before any other I/O, without waiting on a slow time-zone lookup', async () => {
    const t = build();
    await t.link('UADA');
    t.deps.timeZones = { lookup: () => new Promise(() => {}) };
    await approvalsCommand(t.deps)({
      command: {
        text: `show ${ID}`,
        user_id: 'UADA',
        team_id: 'T1',
        channel_id: 'C1',
        response_url: 'https://hooks.slack.invalid/r',
        trigger_id: 'trig-9',
      },
      ack: async () => void t.fake.events.push('ack'),
      client: t.client,
    } as never);
    // The update waits on the zone (for "overdue"); the loading view did not.
    await eventually('views.open', () => t.fake.events.includes('views.open'));
    expect(t.fake.events.slice(0, 2)).toEqual(['ack', 'views.open']);
    expect(t.views[0]?.args.trigger_id).toBe('trig-9');
  });
});
