/**
 * The /collect notices a person reads when a collection does not (wholly) start: who started
 * what a moment ago, what was left out, what aborted. Checked as words, blocks and fallback alike.
 */

import { describe, expect, it } from 'vitest';
import type { Held } from '../../src/collections/start-plan.js';
import {
  renderCollectFailedDm,
  renderCooldown,
  renderHistory,
  renderNoCollectorMatched,
  renderRanAgain,
} from '../../src/render/collect.js';
import type { CollectAttempt } from '../../src/store/types.js';
import { attemptOf } from '../helpers/attempts.js';
import { visible } from '../helpers/visible.js';

const AT = new Date('2026-11-22T12:14:00Z');
const OSCAR = { userId: 'U0OSCAR', channelId: 'C0OPS', at: AT, attemptId: 'a1' };
const OLIVE = { userId: 'U0OLIVE', channelId: 'C0SEC', at: new Date('2026-11-22T12:16:00Z'), attemptId: 'a2' };
const notice = (query: Parameters<typeof renderCooldown>[0]['query'], held: Held[]) =>
  renderCooldown({ query, held, cooldownMs: 600_000, overrideId: 'o1' });

describe('the cooldown notice', () => {
  it('says what the one blocker started, not what was asked for', () => {
    // Oscar started AD Accounts; bare /collect (everything) a minute later is held by it alone.
    const m = notice({}, [{ collector: 'AD Accounts', holder: OSCAR }]);
    const text = visible(m.blocks);
    expect(text).not.toContain('<@U0OSCAR> started *every collector of every application*');
    expect(text).toContain('<@U0OSCAR> started collector *AD Accounts* at 2026-11-22 12:14 UTC in <#C0OPS>');
    expect(text).toContain('*every collector of every application*');
    expect(m.text).not.toContain('started every collector of every application');
    expect(m.text).toMatch(/<@U0OSCAR> started collector AD Accounts at <!date\^\d+\^\{time\}\|2026-11-22 12:14 UTC> in <#C0OPS>/);

    // The same for a whole application.
    const app = visible(notice({ application: 'Active Directory' }, [{ collector: 'AD Accounts', holder: OSCAR }]).blocks);
    expect(app).toContain('<@U0OSCAR> started collector *AD Accounts* at 2026-11-22 12:14 UTC in <#C0OPS>');
    expect(app).not.toContain('<@U0OSCAR> started every collector of *Active Directory*');
  });

  it('names the collector itself when that is what was asked for', () => {
    const text = visible(notice({ name: 'AD Accounts', force: true }, [{ collector: 'AD Accounts', holder: OSCAR }]).blocks);
    expect(text).toMatch(/^:hand: <@U0OSCAR> started collector \*AD Accounts\* at 2026-11-22 12:14 UTC in <#C0OPS>\.\n/);
    expect(text).toContain('The same collection can start again from 2026-11-22 12:24 UTC, so that it does not run twice.');
  });

  it('says who started the very same target', () => {
    const text = visible(notice({ application: 'Active Directory' }, [{ collector: undefined, holder: OLIVE }]).blocks);
    expect(text).toMatch(/^:hand: <@U0OLIVE> started every collector of \*Active Directory\* at 2026-11-22 12:16 UTC in <#C0SEC>\./);
  });
});

describe('the cooldown notice, listing several', () => {
  const everything = (): Held[] => [
    { collector: 'AD Accounts', holder: OSCAR },
    { collector: 'AD Groups', holder: OSCAR },
    { collector: undefined, holder: OSCAR },
  ];

  it('reads naturally: one line per collector, each saying who started it, when and where', () => {
    const text = visible(
      notice({}, [
        { collector: 'AD Accounts', holder: OSCAR },
        { collector: 'AD Groups', holder: OLIVE },
      ]).blocks,
    );
    expect(text).toContain(':hand: Part of *every collector of every application* was started a moment ago:');
    expect(text).toContain('• *AD Accounts*: <@U0OSCAR> started it at 2026-11-22 12:14 UTC in <#C0OPS>');
    expect(text).toContain('• *AD Groups*: <@U0OLIVE> started it at 2026-11-22 12:16 UTC in <#C0SEC>');
    expect(text).toContain('It can all start again from 2026-11-22 12:26 UTC, so that none of them runs twice.');
  });

  it('never lists “the same collection”: the very target started a moment ago is said first, and its own collectors not again', () => {
    const m = notice({}, everything());
    const text = visible(m.blocks);
    expect(text).not.toContain('the same collection:');
    expect(text).toMatch(/^:hand: <@U0OSCAR> started \*every collector of every application\* at 2026-11-22 12:14 UTC in <#C0OPS>\.\n/);
    expect(text).not.toContain('• *AD Accounts*');
    expect(m.text).not.toContain('the same collection:');
  });

  it('lists apart what someone else started since', () => {
    const since = { ...OLIVE, at: new Date('2026-11-22T12:18:00Z') };
    const held = everything().map((h) => (h.collector === 'AD Groups' ? { ...h, holder: since } : h));
    const text = visible(notice({}, held).blocks);
    expect(text).toMatch(/^:hand: <@U0OSCAR> started \*every collector of every application\* at 2026-11-22 12:14 UTC in <#C0OPS>\./);
    expect(text).toContain('Also started a moment ago:\n• *AD Groups*: <@U0OLIVE> started it at 2026-11-22 12:18 UTC in <#C0SEC>');
    expect(text).not.toContain('• *AD Accounts*');
    expect(text).toContain('can start again from 2026-11-22 12:28 UTC');
  });
});

describe('a name that matched nothing, its last word a misspelt force', () => {
  it('offers the command meant, as text to type again, and not the nearest name as well', () => {
    const m = renderNoCollectorMatched({
      query: { name: 'AD Accounts forse' },
      known: ['AD Accounts'],
      meant: undefined,
      retry: '/collect AD Accounts force',
    });
    expect(visible(m.blocks)).toContain(
      'No collector is called *AD Accounts forse*, so nothing was started.\nDid you mean `/collect AD Accounts force`?',
    );
    expect(m.text).toContain('Did you mean /collect AD Accounts force?');
  });
});

describe('history: questions asked', () => {
  const line = (over: Partial<CollectAttempt>): CollectAttempt =>
    attemptOf({ id: 'a', at: AT, userId: 'U0EVE', outcome: 'unanswered', ...over });

  it('says a confirmation was asked for and not answered, and a "Start anyway" offered and not taken', () => {
    const text = visible(
      renderHistory(
        [
          line({}),
          line({
            query: { name: 'AD Accounts', force: true },
            outcome: 'refused',
            reason: { kind: 'cooldown', userId: 'U0OSCAR', at: AT, offered: true },
          }),
        ],
        10,
      ).blocks,
    );
    expect(text).toContain('<@U0EVE> asked for *every collector of every application* · *asked to confirm, no answer*');
    expect(text).toContain(
      '<@U0EVE> asked for collector *AD Accounts*, forced · *refused*: <@U0OSCAR> had started it 2026-11-22 12:14 UTC; Start anyway was offered, not taken',
    );
  });

  it('names who started each run, and its state as the channel’s message words it', () => {
    const text = visible(
      renderHistory(
        [
          line({
            query: { application: 'Active Directory' },
            outcome: 'started',
            runs: [
              { runId: '41', collector: 'AD Accounts', state: 'New' },
              { runId: '42', collector: 'AD Groups', state: 'Running' },
              { runId: '43', collector: 'AD Devices', state: 'Aborted' },
            ],
          }),
          line({
            outcome: 'refused',
            reason: { kind: 'cooldown', userId: 'U0OSCAR', at: AT, offered: false, collector: 'AD Accounts' },
          }),
        ],
        10,
      ).blocks,
    );
    expect(text).toContain(
      '2026-11-22 12:14 UTC · <@U0EVE> started every collector of *Active Directory*: AD Accounts `41` queued, AD Groups `42` running, AD Devices `43` aborted',
    );
    expect(text).not.toMatch(/ new\b/);
    // Held by one collector that someone else started: who started which.
    expect(text).toContain(
      '2026-11-22 12:14 UTC · <@U0EVE> asked for *every collector of every application* · *refused*: <@U0OSCAR> had started collector AD Accounts 2026-11-22 12:14 UTC',
    );
  });

  it('shows an outcome it does not know (written by a newer release) as it was stored', () => {
    const text = visible(renderHistory([line({ outcome: 'postponed' as CollectAttempt['outcome'] })], 10).blocks);
    expect(text).toContain('· *postponed*');
  });
});

describe('the DM when a run aborted', () => {
  it('sends the starter to the service before starting it again, and says the aborted run does not hold the cooldown', () => {
    const m = renderCollectFailedDm({
      channelId: 'C0OPS',
      query: { name: 'AWS IAM' },
      runs: [{ runId: '9', collector: 'AWS IAM', state: 'Aborted' }],
    });
    const text = visible(m.blocks);
    // What the service said: the run's state, and nothing of why, since its status has no reason.
    expect(text).toMatch(
      /^:x: Your collection in <#C0OPS>: the Command Service says its run has ended \*Aborted\*\.\n• \*AWS IAM\*: run `9`\n/,
    );
    expect(text).toContain('The service does not say why a run aborted.');
    for (const claim of ['did not finish well', 'looked wrong', 'circuit breaker']) expect(`${m.text}\n${text}`).not.toContain(claim);
    const two = renderCollectFailedDm({
      channelId: 'C0OPS',
      query: {},
      runs: [
        { runId: '9', collector: 'AWS IAM', state: 'Aborted' },
        { runId: '10', collector: 'AD Accounts', state: 'Completed' },
      ],
    });
    expect(visible(two.blocks)).toContain('the Command Service says 1 of its 2 runs has ended *Aborted*.');
    expect(text).not.toContain('before forcing it');
    expect(text).toContain(
      'Check it in the service before starting it again: an aborted run does not hold the cooldown, so it can start at once.',
    );
  });
});

describe('what countersign could not know beforehand', () => {
  it('tells the asker a whole application ran again a collector started a moment ago by name, why, and that it knows now', () => {
    const m = renderRanAgain([{ collector: 'AD Accounts', holder: OSCAR }], { application: 'Active Directory' });
    const text = visible(m.blocks);
    expect(text).toContain(
      ':warning: Started again within the cooldown: countersign did not know that *Active Directory* has this collector:',
    );
    expect(text).toContain('• *AD Accounts*: <@U0OSCAR> started it at 2026-11-22 12:14 UTC in <#C0OPS>');
    expect(text).toContain(
      'The service names the collector of each run but not its application, so countersign learns which collectors an application has from a start of the whole application, such as this one. It knows now, and leaves them out next time.',
    );
    expect(m.text).toContain('Started again within the cooldown');
  });

  it('says why nothing of a target was started when part of it is held and the rest is not known, and what the asker can do', () => {
    const m = renderCooldown({
      query: { application: 'Active Directory' },
      held: [{ collector: 'AD Accounts', holder: OSCAR }],
      cooldownMs: 600_000,
      overrideId: 'o1',
      unknownRest: true,
    });
    const text = visible(m.blocks);
    // What is blocked, until when, and what the asker can do now: in two sentences, in their words, not countersign's.
    expect(text).toBe(
      [
        ':hand: Nothing was started: <@U0OSCAR> started *AD Accounts* at 2026-11-22 12:14 UTC in <#C0OPS>, and starting every collector of *Active Directory* now would run it again.',
        'You can start every collector of *Active Directory* from 2026-11-22 12:24 UTC, or now with *Start anyway*, which runs *AD Accounts* a second time.',
        '[Start anyway] [Cancel]',
        'Nothing was sent to the Command Service.',
      ].join('\n'),
    );
    for (const internal of ['does not know', 'the service says which', 'by name', 'Part of']) expect(text).not.toContain(internal);
    expect(m.text).toContain('Nothing was started');

    // Everything, by someone who may not override: no Start anyway in the words either.
    const all = visible(
      renderCooldown({
        query: {},
        held: [
          { collector: 'AD Accounts', holder: OSCAR },
          { collector: 'HR Feed', holder: OLIVE },
        ],
        cooldownMs: 600_000,
        overrideId: undefined,
        unknownRest: true,
      }).blocks,
    );
    expect(all).toContain(
      ':hand: Nothing was started: *AD Accounts* and *HR Feed* were started a moment ago, and starting *every collector of every application* now would run them again.',
    );
    expect(all).toContain('• *HR Feed*: <@U0OLIVE> started it at');
    expect(all).toContain('You can start *every collector of every application* from 2026-11-22 12:26 UTC.');
    expect(all).not.toContain('Start anyway');

    const known = renderCooldown({
      query: { application: 'Active Directory' },
      held: [{ collector: 'AD Accounts', holder: OSCAR }],
      cooldownMs: 600_000,
      overrideId: 'o1',
      unknownRest: false,
    });
    expect(visible(known.blocks)).not.toContain('does not know the rest');
    expect(visible(known.blocks)).not.toContain('What you can do');
  });

  it('speaks to the asker as “you” where they are the one who started it', () => {
    const text = visible(
      renderCooldown({
        query: {},
        held: [{ collector: 'AD Accounts', holder: OSCAR }],
        cooldownMs: 600_000,
        overrideId: 'o1',
        unknownRest: true,
        askerId: OSCAR.userId,
      }).blocks,
    );
    expect(text).toContain(':hand: Nothing was started: you started *AD Accounts* at 2026-11-22 12:14 UTC in <#C0OPS>');
    expect(text).not.toContain('<@U0OSCAR>');
    const own = visible(
      renderCooldown({
        query: { name: 'AD Accounts' },
        held: [{ collector: 'AD Accounts', holder: OSCAR }],
        cooldownMs: 600_000,
        overrideId: 'o1',
        askerId: OSCAR.userId,
      }).blocks,
    );
    expect(own).toMatch(/^:hand: You started collector \*AD Accounts\* at /);
    const other = visible(notice({ name: 'AD Accounts' }, [{ collector: 'AD Accounts', holder: OSCAR }]).blocks);
    expect(other).toContain('<@U0OSCAR> started collector *AD Accounts*');
  });
});

describe('the notices name buttons as they read', () => {
  it('calls a forced start past the cooldown by its button’s words', () => {
    const m = renderCooldown({
      query: { force: true },
      held: [{ collector: 'AD Accounts', holder: OSCAR }],
      cooldownMs: 600_000,
      overrideId: 'o1',
      unknownRest: true,
    });
    const text = visible(m.blocks);
    expect(text).toContain('or now with *Start anyway, forced*, which runs *AD Accounts* a second time.');
    expect(text).toContain('[Start anyway, forced] [Cancel]');
  });
});
