/**
 * What the trusted-application mode shows: the sign-in modal without a token, whoami, Home, the
 * switch-over and sign-in messages. Names from the service or a user are shown exactly, and every
 * message and view passes Slack's checks.
 */

import { describe, expect, it } from 'vitest';
import { renderNotLinked, translateFailure } from '../../src/render/errors.js';
import { renderHome } from '../../src/render/home.js';
import { identityLinked, LINK_FIELDS, linkModal, renderLoggedOut, renderWhoami } from '../../src/render/link.js';
import { renderReminderRelink } from '../../src/render/reminders.js';
import { messageProblems, viewProblems } from '../../src/render/validate.js';
import { AppTokenRefusedError, LinkOutdatedError, RefusedForUserError } from '../../src/service/credentials.js';
import { AppSignInError, InvalidTokenError, MissingParameterError } from '../../src/service/errors.js';
import { timeFrame } from '../../src/time/frame.js';
import { visible } from '../helpers/visible.js';

const HOSTILE = 'jdoe*<!channel>_`x`';
const at = new Date('2026-11-01T09:00:00Z');
const identity = {
  teamId: 'T1',
  userId: 'U1',
  serviceUser: HOSTILE,
  authsource: 'corp-ldap',
  source: 'login' as const,
  linkedAt: at,
  lastUsedAt: undefined,
  lastOutcome: undefined,
};
const commands = ['findApprovals', 'collectEntitlements'] as const;
const ctx = {
  slash: '/approvals' as const,
  command: 'findApprovals' as const,
  userId: 'U1',
  reference: 'ref1',
  linkMode: 'trusted-app' as const,
};
const expired = new InvalidTokenError({
  command: 'findApprovals',
  status: 401,
  serviceMessage: "The token is not valid for the command 'findApprovals'. Token is invalid or expired",
});

describe('the trusted mode’s words', () => {
  it('offers signing in only, in a modal Slack accepts', () => {
    const view = linkModal({ command: 'findApprovals' }, undefined, {}, 'trusted-app');
    expect(viewProblems(view)).toEqual([]);
    expect(view.blocks.map((b) => b.block_id)).not.toContain(LINK_FIELDS.token.block);
    expect(JSON.stringify(view)).toContain('Sign in once');
    // Signing in is the only way: username and password are needed, the source is not.
    const optional = Object.fromEntries(
      (view.blocks as Array<{ block_id?: string; optional?: boolean }>).filter((b) => b.block_id).map((b) => [b.block_id, b.optional]),
    );
    expect(optional).toEqual({
      [LINK_FIELDS.username.block]: false,
      [LINK_FIELDS.password.block]: false,
      [LINK_FIELDS.authsource.block]: true,
    });
    // With users' own tokens, each form asks for one way: the sign-in form needs the same two fields, the token form the token.
    const needed = (view: ReturnType<typeof linkModal>) =>
      Object.fromEntries(
        (view.blocks as Array<{ type: string; block_id?: string; optional?: boolean }>)
          .filter((b) => b.type === 'input')
          .map((b) => [b.block_id, b.optional]),
      );
    expect(needed(linkModal({ command: 'findApprovals' }))).toEqual(optional);
    expect(needed(linkModal({ command: 'findApprovals' }, undefined, {}, 'user-tokens', 'token'))).toEqual({
      [LINK_FIELDS.token.block]: false,
    });
    const done = identityLinked(HOSTILE, 'corp-ldap', 1);
    expect(viewProblems(done)).toEqual([]);
    expect(visible(done.blocks)).toContain(`Linked as \`${HOSTILE}\` (corp-ldap).`);
  });

  it('says in whoami how countersign calls the service, and whom for, exactly', () => {
    const m = renderWhoami('U1', { mode: 'trusted-app', identity, tokens: [] }, commands);
    expect(messageProblems(m)).toEqual([]);
    expect(visible(m.blocks)).toContain(`Linked as \`${HOSTILE}\` (corp-ldap) by signing in`);
    expect(visible(m.blocks)).toContain('as an application the service trusts');
    expect(m.text).not.toContain('<!channel>');
    const tokens = renderWhoami('U1', { mode: 'user-tokens', identity: undefined, tokens: [] }, commands);
    expect(visible(tokens.blocks)).toContain('with your own token');
    const none = renderWhoami('U1', { mode: 'trusted-app', identity: undefined, tokens: [] }, commands);
    expect(visible(none.blocks)).toContain('Not linked. Type `/approvals login` and sign in once.');
  });

  it('says in whoami what is true of a refusal: a command the service does not let the user run, the user unknown, or countersign’s own sign-in refused', () => {
    const used = new Date('2026-11-02T10:00:00Z');
    const barred = renderWhoami(
      'U1',
      {
        mode: 'trusted-app',
        identity: { ...identity, lastUsedAt: used, lastOutcome: 'not-permitted', notPermitted: 'collectEntitlements' },
        tokens: [],
      },
      commands,
    );
    expect(messageProblems(barred)).toEqual([]);
    expect(visible(barred.blocks)).toContain('the service does not let you start collections');
    expect(visible(barred.blocks)).toContain('an administrator of the service grants it');
    expect(visible(barred.blocks)).not.toMatch(/link again|refused/i);
    const unknown = renderWhoami(
      'U1',
      { mode: 'trusted-app', identity: { ...identity, lastUsedAt: used, lastOutcome: 'rejected' }, tokens: [] },
      commands,
    );
    expect(visible(unknown.blocks)).toContain('the service refused to act for you');
    expect(visible(unknown.blocks)).toContain('link again');
    const ok = { ...identity, lastUsedAt: used, lastOutcome: 'ok' as const };
    const refusing = renderWhoami(
      'U1',
      { mode: 'trusted-app', identity: ok, tokens: [], trouble: { kind: 'refused', since: used } },
      commands,
    );
    expect(messageProblems(refusing)).toEqual([]);
    expect(visible(refusing.blocks)).toContain('*The Command Service is refusing countersign’s own sign-in*');
    expect(visible(refusing.blocks)).toContain('An administrator needs to fix that');
    expect(visible(refusing.blocks)).not.toMatch(/link again/i);
    expect(refusing.text).toContain('The Command Service is refusing countersign’s own sign-in');
    const away = renderWhoami(
      'U1',
      { mode: 'trusted-app', identity: ok, tokens: [], trouble: { kind: 'unreachable', since: used } },
      commands,
    );
    expect(visible(away.blocks)).toContain('countersign cannot reach the Command Service to sign in');
  });

  it('shows the identity on Home and forgets it at logout', () => {
    const view = renderHome({
      outcome: { mode: 'trusted-app', identity, links: [] },
      frame: timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined),
      windowDays: 3,
      commands,
    });
    expect(viewProblems(view)).toEqual([]);
    expect(visible(view.blocks)).toContain(`Linked as \`${HOSTILE}\` (corp-ldap) since Sun 1 Nov 2026, 09:00 UTC`);
    // A link that works does not expire: nothing to link again, only Unlink.
    const buttons = (v: typeof view) =>
      (v.blocks as Array<{ type: string; elements?: Array<{ text?: { text?: string } }> }>)
        .filter((b) => b.type === 'actions')
        .flatMap((b) => (b.elements ?? []).map((e) => e.text?.text));
    expect(buttons(view)).toContain('Unlink');
    expect(buttons(view)).not.toContain('Link again');
    const refused = renderHome({
      outcome: { mode: 'trusted-app', identity: { ...identity, lastOutcome: 'rejected' }, links: [] },
      frame: timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined),
      windowDays: 3,
      commands,
    });
    expect(buttons(refused)).toEqual(expect.arrayContaining(['Link again', 'Unlink']));
    // The service refusing countersign's own sign-in, or not answering, is nothing to link again for.
    for (const failure of [new AppSignInError({ command: 'loginTrustedApp', status: 401 }), new AppTokenRefusedError(expired)]) {
      const problem = translateFailure(failure, ctx).message;
      const view2 = renderHome({
        outcome: { mode: 'trusted-app', identity, links: [], failure },
        frame: timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined),
        windowDays: 3,
        commands,
        problem,
      });
      expect(viewProblems(view2)).toEqual([]);
      expect(buttons(view2)).not.toContain('Link again');
    }
    const barred = renderHome({
      outcome: {
        mode: 'trusted-app',
        identity: { ...identity, lastOutcome: 'not-permitted', notPermitted: 'collectEntitlements' },
        links: [],
      },
      frame: timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined),
      windowDays: 3,
      commands,
    });
    expect(visible(barred.blocks)).toContain('the service does not let you start collections (an administrator of the service grants it)');
    expect(buttons(barred)).not.toContain('Link again');
    const welcome = renderHome({
      outcome: { mode: 'trusted-app', links: [] },
      frame: timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined),
      windowDays: 3,
      commands,
    });
    expect(visible(welcome.blocks)).toContain('sign in once');
    expect(visible(welcome.blocks)).not.toContain('or a token');
    expect(renderLoggedOut({ removed: 0, endedAtService: 0, identities: 1 }).text).toContain('forgot who you are in the Command Service');
  });

  it('asks a user whose token from before expired to link once more: news, with Link again, not an error', () => {
    const t = translateFailure(new LinkOutdatedError(expired), { ...ctx, relink: '{}' });
    expect(messageProblems(t.message)).toEqual([]);
    expect(visible(t.message.blocks)).toContain('countersign now acts for you in a way that lasts');
    expect(visible(t.message.blocks)).toContain('[Link again]');
    expect(visible(t.message.blocks)).not.toContain('ref1');
    expect(t.log.level).toBe('info');
    for (const reason of ['outdated', 'refused', 'expired', 'not-linked'] as const)
      expect(messageProblems(renderReminderRelink(reason))).toEqual([]);
    expect(renderReminderRelink('outdated').text).toContain('in a way that lasts');
  });

  it('quotes the service when it refuses to act for the user, and says plainly when countersign cannot sign in', () => {
    const refused = translateFailure(
      new RefusedForUserError(
        new InvalidTokenError({
          command: 'findApprovals',
          status: 401,
          serviceMessage: "The user 'x' given by auth-user-id could not be found.",
        }),
        HOSTILE,
      ),
      ctx,
    );
    expect(messageProblems(refused.message)).toEqual([]);
    expect(visible(refused.message.blocks)).toContain(`The Command Service refused to act for your account \`${HOSTILE}\`.`);
    expect(visible(refused.message.blocks)).toContain("“The user 'x' given by auth-user-id could not be found.”");
    const barred = translateFailure(
      new RefusedForUserError(
        new InvalidTokenError({
          command: 'findApprovals',
          status: 401,
          serviceMessage: "The token is not valid for the command 'findApprovals'. ",
        }),
        HOSTILE,
      ),
      ctx,
    );
    expect(messageProblems(barred.message)).toEqual([]);
    expect(visible(barred.message.blocks)).toContain(`The Command Service does not let your account \`${HOSTILE}\` list your approvals.`);
    expect(visible(barred.message.blocks)).toContain('an administrator of the service grants them');
    // Countersign's own sign-in refused, or every token it is given: the same words, about no one's link.
    for (const error of [
      new AppSignInError({ command: 'loginTrustedApp', status: 401 }),
      new AppTokenRefusedError(
        new InvalidTokenError({
          command: 'findApprovals',
          status: 401,
          serviceMessage: "The token is not valid for the command 'findApprovals'. Token is invalid or expired",
        }),
      ),
    ]) {
      const signIn = translateFailure(error, { ...ctx, relink: '{}' });
      expect(messageProblems(signIn.message)).toEqual([]);
      expect(visible(signIn.message.blocks)).toContain('The Command Service is refusing countersign’s own sign-in');
      expect(visible(signIn.message.blocks)).toContain('an administrator');
      expect(visible(signIn.message.blocks)).not.toMatch(/link/i);
    }
    const notLinked = renderNotLinked(ctx);
    expect(visible(notLinked.blocks)).toContain('or ask your Slack admins to link you.');
    expect(visible(notLinked.blocks)).not.toMatch(/countersign (users|tokens)|U1\b/);
  });

  it('words the service asking for auth-user-id by the mode: no token of one’s own to link in the trusted mode', () => {
    const missing = new MissingParameterError('auth-user-id', {
      command: 'findApprovals',
      status: 412,
      serviceMessage: 'The parameter auth-user-id is required.',
    });
    const trusted = translateFailure(missing, ctx);
    expect(messageProblems(trusted.message)).toEqual([]);
    expect(visible(trusted.message.blocks)).not.toContain('Link a token of your own');
    expect(visible(trusted.message.blocks)).toContain('`/approvals login`');
    expect(visible(trusted.message.blocks)).toContain('your Slack admins');
    const tokens = translateFailure(missing, { ...ctx, linkMode: 'user-tokens' });
    expect(visible(tokens.message.blocks)).toContain('Link a token of your own');
  });
});
