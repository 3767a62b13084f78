/**
 * The Slack adapter's listeners, called as Bolt calls them (arguments built here, nothing else of
 * Bolt) with fakes behind them: a scripted service, an in-memory store, a fixed clock.
 */

import type { RespondArguments } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { InvalidTokenError } from '../../src/service/index.js';
import { confirmAction } from '../../src/slack/handlers/actions/confirm.js';
import { actionRoute } from '../../src/slack/handlers/actions/index.js';
import { pagingAction } from '../../src/slack/handlers/actions/paging.js';
import { approvalsCommand } from '../../src/slack/handlers/commands/approvals.js';
import { collectCommand } from '../../src/slack/handlers/commands/collect.js';
import { commandRoute } from '../../src/slack/handlers/commands/index.js';
import { eventRoute } from '../../src/slack/handlers/events/index.js';
import { viewRoute } from '../../src/slack/handlers/views/index.js';
import { requestMiddleware } from '../../src/slack/transport/routes.js';
import { DecryptError } from '../../src/store/cipher.js';
import { type FakeDepsOptions, failing, fakeDeps, fakeService } from '../helpers/fakes.js';

function build(options: FakeDepsOptions = {}) {
  const t = fakeDeps(options);
  const ack = async () => {
    t.fake.events.push('ack');
  };
  /** A slash command's arguments, as Bolt passes them; override what a test cares about. */
  const commandArgs = (text: string, over: Record<string, string> = {}) =>
    ({
      command: { text, user_id: 'UADA', team_id: 'T1', channel_id: 'C1', response_url: 'https://hooks.slack.invalid/r', ...over },
      ack,
    }) as never;
  const clickArgs = (actionId: string, value: string, userId = 'UADA') =>
    ({
      body: { user: { id: userId, team_id: 'T1' }, team: { id: 'T1' }, response_url: 'https://hooks.slack.invalid/r' },
      action: { action_id: actionId, value },
      ack,
    }) as never;
  return { ...t, commandArgs, clickArgs, posts: t.posted };
}

const texts = (responses: RespondArguments[]) => JSON.stringify(responses);

describe('approvalsCommand', () => {
  it('acks before it calls the service, and uses the asker’s own token', async () => {
    const t = build();
    await t.link();
    await approvalsCommand(t.deps)(t.commandArgs('completed'));
    await t.deps.background.drain();
    expect(t.fake.events).toEqual(['ack', 'service', 'respond']);
    expect(t.fake.calls).toEqual([{ command: 'findApprovals', query: { state: 'completed', 'page-size': 10 }, token: 'token-of-UADA' }]);
  });

  it('keeps the page it drew for a decision’s redraw only where decisions can be taken', async () => {
    for (const decisions of [undefined, { DECISION_REQUEST: 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}' }]) {
      const t = build(decisions === undefined ? {} : { decisions });
      await t.link();
      await approvalsCommand(t.deps)(t.commandArgs('completed'));
      await t.deps.background.drain();
      expect(t.deps.shown.page('UADA', { state: 'completed', 'page-size': 10 }) !== undefined, String(decisions !== undefined)).toBe(
        decisions !== undefined,
      );
    }
  });

  it('counts relative dates from the user’s today in their time zone', async () => {
    const t = build({ zone: 'America/Los_Angeles', now: '2026-11-22T06:30:00Z' });
    await t.link();
    // 22:30 on the 21st in Los Angeles: -2d is the last two days, the 20th and the 21st.
    await approvalsCommand(t.deps)(t.commandArgs('due-before:today due-after:-2d'));
    await t.deps.background.drain();
    expect(t.fake.calls[0]).toMatchObject({ command: 'findApprovals', query: { 'due-before': '21-nov-2026', 'due-after': '20-nov-2026' } });
  });

  it('sends the user’s days as the service’s, its zone known, and shows its times in theirs', async () => {
    // 08:00 on Monday the 23rd in Tokyo is 18:00 on Sunday the 22nd in New York.
    const t = build({
      zone: 'Asia/Tokyo',
      serviceTimeZone: 'America/New_York',
      now: '2026-11-22T23:00:00Z',
      service: fakeService({
        findApprovals: async () => ({
          approvals: [
            { workItemId: '1:W:1', workItemName: 'W', requestName: 'R', dueDate: '2026-11-23 03:00:00.0', completedDate: '', fields: {} },
          ],
          count: 1,
        }),
      }),
    });
    await t.link();
    await approvalsCommand(t.deps)(t.commandArgs('due-after:today due-before:7d'));
    await t.deps.background.drain();
    // Tokyo's 23rd to 29th are, as nearly as whole days of New York allow, its 22nd to 28th: and the page says so, on Tokyo's clock.
    expect(t.fake.calls[0]).toMatchObject({ query: { 'due-after': '22-nov-2026', 'due-before': '28-nov-2026' } });
    const shown = texts(t.responses);
    expect(shown).toContain('Due Mon 23 Nov 2026, 17:00 Tokyo time (due today)');
    expect(shown).toContain('due from Sun 22 Nov 2026, 14:00 Tokyo time · due before Sun 29 Nov 2026, 14:00 Tokyo time');
  });

  it('reads the text once: the middleware reads it, and the listener acts on what it read, counting the dates in the user’s zone', async () => {
    const t = build({ zone: 'America/Los_Angeles', now: '2026-11-22T06:30:00Z' });
    await t.link();
    const context: Record<string, unknown> = {};
    const body = { command: '/approvals', text: 'completed due-before:today', user_id: 'UADA', team_id: 'T1' };
    await requestMiddleware(t.deps)({ body, context, ack: async () => {}, next: async () => {} } as never);
    // The listener is handed other text: what it acts on is what the middleware read, not read again.
    await approvalsCommand(t.deps)({ ...(t.commandArgs('help') as object), context } as never);
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([
      { command: 'findApprovals', query: { state: 'completed', 'due-before': '21-nov-2026', 'page-size': 10 }, token: 'token-of-UADA' },
    ]);
  });

  it('never calls the service for bad input', async () => {
    const t = build();
    await t.link();
    await approvalsCommand(t.deps)(t.commandArgs('sort:sideways'));
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([]);
    expect(texts(t.responses)).toContain('sort can be asc, desc');
  });

  it('marks the link rejected on a 401 and says how to link again', async () => {
    const t = build({
      service: fakeService(
        failing(
          'findApprovals',
          new InvalidTokenError({ command: 'findApprovals', status: 401, serviceMessage: 'Token is invalid or expired' }),
        ),
      ),
    });
    await t.link();
    await approvalsCommand(t.deps)(t.commandArgs(''));
    await t.deps.background.drain();
    expect(texts(t.responses)).toContain('not valid or has expired');
    expect((await t.deps.store.listLinks()).find((l) => l.command === 'findApprovals')?.lastOutcome).toBe('rejected');
  });

  it('survives a response_url that fails, logging it', async () => {
    const t = build();
    await t.link();
    t.failResponseUrl();
    await approvalsCommand(t.deps)(t.commandArgs(''));
    await t.deps.background.drain();
    expect(t.logs.some((l) => l.includes('background task failed') && l.includes('response_url answered 404'))).toBe(true);
  });

  it('answers a store that cannot decrypt with an apology, not a crash', async () => {
    const t = build();
    await t.link();
    t.deps.store.getToken = async () => {
      throw new DecryptError('auth-failed');
    };
    await approvalsCommand(t.deps)(t.commandArgs(''));
    await t.deps.background.drain();
    expect(texts(t.responses)).toContain('Something went wrong inside countersign');
    expect(t.logs.some((l) => l.includes('"level":"error"') && l.includes('stored token failed authentication'))).toBe(true);
  });
});

describe('a store that fails mid-task', () => {
  it('still gets the user an answer, for a confirmation and for whoami', async () => {
    const t = build();
    t.deps.store.claimConfirmation = async () => {
      throw new Error('connection terminated unexpectedly');
    };
    t.deps.store.listLinks = async () => {
      throw new Error('connection terminated unexpectedly');
    };
    await confirmAction(t.deps, 'run')(t.clickArgs('collect:run', 'id-000001'));
    await collectCommand(t.deps)(t.commandArgs('whoami'));
    await t.deps.background.drain();
    expect(t.responses).toHaveLength(2);
    for (const r of t.responses) expect(JSON.stringify(r)).toContain('Something went wrong inside countersign');
    expect(t.logs.filter((l) => l.includes('background task failed'))).toHaveLength(2);
  });
});

describe('login', () => {
  it('opens the modal at once, without waiting on a slow time-zone lookup (the trigger lasts 3 s)', async () => {
    const t = build();
    let lookups = 0;
    t.deps.timeZones = {
      lookup: () => {
        lookups++;
        return new Promise(() => {}); // Slack never answers users.info
      },
    };
    const opened: unknown[] = [];
    const client = { views: { open: async (args: unknown) => void opened.push(args) } };
    await approvalsCommand(t.deps)({ ...(t.commandArgs('login', { trigger_id: 'trig-1' }) as object), client } as never);
    await t.deps.background.drain();
    expect(opened).toEqual([
      expect.objectContaining({ trigger_id: 'trig-1', view: expect.objectContaining({ callback_id: 'link-account' }) }),
    ]);
    expect(lookups).toBe(0);
  });
});

describe('pagingAction', () => {
  it('refuses anyone but the asker, without a service call', async () => {
    const t = build();
    await t.link('UEVE');
    await pagingAction(t.deps)(t.clickArgs('approvals:next', JSON.stringify({ u: 'UADA', q: { 'start-page': 2 } }), 'UEVE'));
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([]);
    expect(texts(t.responses)).toContain('Only <@UADA> can page through these approvals');
  });

  it('re-issues the carried query for the asker and replaces the message', async () => {
    const t = build();
    await t.link();
    await pagingAction(t.deps)(t.clickArgs('approvals:next', JSON.stringify({ u: 'UADA', q: { 'start-page': 2, 'page-size': 5 } })));
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([{ command: 'findApprovals', query: { 'start-page': 2, 'page-size': 5 }, token: 'token-of-UADA' }]);
    expect(t.responses[0]?.replace_original).toBe(true);
  });
});

describe('collect', () => {
  it('asks before everything, and runs exactly once on confirmation', async () => {
    const t = build();
    await t.link();
    await collectCommand(t.deps)(t.commandArgs(''));
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([]);
    const value = /"value":"(id-\d+)"/.exec(texts(t.responses))?.[1] ?? '';
    await Promise.all([
      confirmAction(t.deps, 'run')(t.clickArgs('collect:run', value)),
      confirmAction(t.deps, 'run')(t.clickArgs('collect:run', value)),
    ]);
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([{ command: 'collectEntitlements', query: {}, token: 'token-of-UADA' }]);
    expect(t.posts.map((p) => p.channel)).toEqual(['C1']);
  });

  it('answers in the channel through response_url when the bot may not post there, saying how to get live status', async () => {
    const t = build({ postFails: 'not_in_channel' });
    await t.link();
    await collectCommand(t.deps)(t.commandArgs('AD Accounts'));
    await t.deps.background.drain();
    const shown = t.responses.filter((r) => r.response_type === 'in_channel');
    expect(shown).toHaveLength(1);
    expect(texts(shown)).toContain('invite countersign to this channel');
    const [attempt] = await t.deps.store.listCollectAttempts({ limit: 5 });
    expect(attempt).toMatchObject({ outcome: 'started', channelId: 'C1', runs: [{ runId: '1', collector: 'AD Accounts' }] });
  });

  it('refuses outside the allowed channels, users and groups, before the service and before asking to confirm', async () => {
    const policy = { allowedChannels: ['C0OPS'], allowedUsers: ['UOSCAR'], allowedUserGroups: ['S0OPS'], forceAllowedUsers: ['UOSCAR'] };
    const t = build({ policy, groups: { S0OPS: ['UADA'] } });
    await t.link();
    await t.link('UEVE');
    await collectCommand(t.deps)(t.commandArgs('AD Accounts'));
    await collectCommand(t.deps)(t.commandArgs('', { channel_id: 'C1' }));
    await collectCommand(t.deps)(t.commandArgs('AD Accounts', { channel_id: 'C0OPS', user_id: 'UEVE' }));
    await collectCommand(t.deps)(t.commandArgs('AWS IAM force', { channel_id: 'C0OPS' }));
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([]);
    const answers = t.responses.map((r) => JSON.stringify(r));
    expect(answers[0]).toContain('Collections are not started from this channel. Use `/collect` in <#C0OPS>');
    expect(answers[1]).toContain('not started from this channel');
    expect(answers[1]).not.toContain('collect:run');
    expect(answers[2]).toContain('You are not among those who may start collections: <@UOSCAR>, <!subteam^S0OPS>');
    expect(answers[3]).toContain('Forcing a collection (past its circuit breaker) is kept for <@UOSCAR>');
    expect((await t.deps.store.listCollectAttempts({ limit: 10 })).map((a) => [a.outcome, a.reason?.kind])).toEqual([
      ['refused', 'force'],
      ['refused', 'user'],
      ['refused', 'channel'],
      ['refused', 'channel'],
    ]);
    // In the right channel, Ada (in the allowed group) may start one.
    await collectCommand(t.deps)(t.commandArgs('AD Accounts', { channel_id: 'C0OPS' }));
    await t.deps.background.drain();
    expect(t.fake.calls).toHaveLength(1);
  });

  it('runs a named collector straight away with exactly the parsed query', async () => {
    const t = build();
    await t.link();
    await collectCommand(t.deps)(t.commandArgs('name:"x&force=true" application:AD'));
    await t.deps.background.drain();
    expect(t.fake.calls).toEqual([
      { command: 'collectEntitlements', query: { name: 'x&force=true', application: 'AD' }, token: 'token-of-UADA' },
    ]);
  });
});

describe('the request middleware', () => {
  const requests = {
    command: { command: '/approvals', text: '', user_id: 'UADA', team_id: 'T1' },
    action: { type: 'block_actions', user: { id: 'UADA' }, actions: [{ action_id: 'approvals:next' }] },
    view: { type: 'view_submission', user: { id: 'UADA' }, view: { callback_id: 'x' } },
    event: { type: 'event_callback', event: { type: 'app_home_opened', user: 'UADA' } },
    unsubscribed: { type: 'event_callback', event: { type: 'member_joined_channel', user: 'UADA' } },
  };

  it('hands each request to the first route that takes it, and one that none takes on to Bolt', async () => {
    for (const [kind, body] of Object.entries(requests)) {
      const t = build();
      const taken: string[] = [];
      let passedOn = false;
      const route = (name: string) => (args: { body: Record<string, unknown> }) =>
        args.body === body && name === kind ? Promise.resolve(void taken.push(name)) : undefined;
      await requestMiddleware(t.deps, [route('command'), route('action'), route('view'), route('event')] as never)({
        body,
        context: {},
        ack: async () => {},
        next: async () => {
          passedOn = true;
        },
      } as never);
      expect({ kind, taken, passedOn }).toEqual({ kind, taken: kind === 'unsubscribed' ? [] : [kind], passedOn: kind === 'unsubscribed' });
    }
  });

  it('with the real routes: takes a click of an unknown action, and passes on a modal closed and events it does not handle', async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, boolean]> = [
      [
        'unknown action',
        { type: 'block_actions', user: { id: 'UADA' }, actions: [{ action_id: 'nothing:here' }] },
        { action: { action_id: 'nothing:here' } },
        false,
      ],
      ['modal closed', { type: 'view_closed', user: { id: 'UADA' }, view: { callback_id: 'x' } }, { view: { callback_id: 'x' } }, true],
      [
        'message event',
        { type: 'event_callback', event: { type: 'message', user: 'UADA' } },
        { event: { type: 'message', user: 'UADA' } },
        true,
      ],
      [
        'member joined',
        { type: 'event_callback', event: { type: 'member_joined_channel', user: 'UADA' } },
        { event: { type: 'member_joined_channel', user: 'UADA' } },
        true,
      ],
    ];
    for (const [what, body, fields, passes] of cases) {
      const t = build();
      let passedOn = false;
      await requestMiddleware(t.deps, [commandRoute(t.deps), actionRoute(t.deps), viewRoute(t.deps), eventRoute(t.deps)])({
        body,
        ...fields,
        context: {},
        ack: async () => {},
        next: async () => {
          passedOn = true;
        },
      } as never);
      expect({ what, passedOn }).toEqual({ what, passedOn: passes });
    }
  });
});

describe('/approvals notify', () => {
  it('shows and changes the setting, the quiet hours in the user’s zone', async () => {
    const t = build({ zone: 'Europe/London', notifyIntervalMs: 300_000 });
    await t.link();
    for (const text of ['notify quiet 19:00-08:00', 'notify off', 'notify']) await approvalsCommand(t.deps)(t.commandArgs(text));
    await t.deps.background.drain();
    const [quiet, off, shown] = t.responses.map((r) => JSON.stringify(r));
    expect(quiet).toContain('Quiet hours 19:00–08:00 London time: what arrives then comes in one message when they end.');
    expect(off).toContain('Done. Arrival messages are off');
    expect(shown).toContain('Arrival messages are off');
    expect(shown).toContain('Quiet hours kept for when they are on: 19:00–08:00 London time.');
    // Nothing of it reaches the service.
    expect(t.fake.calls).toEqual([]);
  });

  it('says so when the account is not linked, since nothing could come', async () => {
    const t = build({ notifyIntervalMs: 300_000 });
    await approvalsCommand(t.deps)(t.commandArgs('notify on'));
    await t.deps.background.drain();
    expect(texts(t.responses)).toContain('Your account is not linked yet');
    const linked = build({ notifyIntervalMs: 300_000 });
    await linked.link();
    await approvalsCommand(linked.deps)(linked.commandArgs('notify on'));
    await linked.deps.background.drain();
    expect(texts(linked.responses)).not.toContain('not linked');
  });

  it('names what is wrong, with the right form', async () => {
    const t = build({ notifyIntervalMs: 300_000 });
    await approvalsCommand(t.deps)(t.commandArgs('notify quiet 19:00'));
    await t.deps.background.drain();
    expect(texts(t.responses)).toContain('is not a range of hours');
    expect(texts(t.responses)).toContain('/approvals notify quiet 19:00-08:00');
  });

  it('says so where the installation has arrival messages off (NOTIFY_INTERVAL off)', async () => {
    const t = build();
    await approvalsCommand(t.deps)(t.commandArgs('notify on'));
    await t.deps.background.drain();
    expect(texts(t.responses)).toContain('turned off for everyone in this workspace');
  });
});
