/**
 * The "link your account" modal: sign in with the service's username and password (the app keeps
 * only the token the service returns), or paste a token. In the trusted mode, signing in is the
 * only way, and proves once who the user is: the app keeps their username. Slack inputs cannot
 * hide what is typed, so the modal says so, and the password is never shown back, logged or kept.
 */

import type { View } from '@slack/types';
import type { LinkMetadata, Replay } from '../parse/buttons.js';
import { slashFor } from '../parse/slash.js';
import type { AppTrouble, LinkMode } from '../service/credentials.js';
import { isServiceError } from '../service/errors.js';
import type { IdentityLink, LinkSummary, ServiceCommandName } from '../store/types.js';
import { readableInstant } from '../time/write.js';
import { context, fallback, LIMITS, type Message, section } from './blocks.js';
import { commandPurpose, commandWords, permittedWords } from './commands.js';
import { bold, emoji, md, oneLine, type Paragraph, type Run, code as richCode, richMessage, richText, user } from './rich.js';

export const LINK_CALLBACK = 'link-account';
export const LINK_FIELDS = {
  username: { block: 'username', action: 'value' },
  password: { block: 'password', action: 'value' },
  authsource: { block: 'authsource', action: 'value' },
  token: { block: 'token', action: 'value' },
} as const;

export const RELINK_ACTION = 'account:relink';

/** The block that says why the last try failed: a form sent again from a view that has it must not keep it. */
export const LINK_PROBLEM_BLOCK = 'link:problem';

/** The "Link again" button's value; undefined when the query is too long to carry. */
export function encodeRelink(replay: Replay): string | undefined {
  const value = JSON.stringify(replay);
  return value.length <= LIMITS.buttonValue ? value : undefined;
}

/** In the trusted mode, a token cannot link anyone; said under the field if a form sends one anyway. */
export const TOKEN_NOT_ACCEPTED =
  'This installation links you by who you are: sign in with your username and password. A token does not say whose it is, so it cannot be used here.';

/** Why linking failed, in words for the modal; `withAuthsource`: whether the form named an authentication source. */
export function linkProblem(error: unknown, withAuthsource = true): string {
  if (!isServiceError(error)) return 'Something went wrong inside countersign; nothing was linked. Please try again.';
  switch (error.kind) {
    case 'login-failed': {
      const said = `The Command Service did not accept that username and password: ${error.serviceMessage ?? ''}`.trim();
      // A directory user is not found at all without their source, and the service says only "incorrect".
      return withAuthsource
        ? said
        : `${said} If you sign in through a directory (such as corp-ldap), fill in the authentication source too.`;
    }
    case 'invalid-token':
      return 'The Command Service did not accept that token: it is not valid, has expired, or may not run findApprovals.';
    case 'service-unavailable':
      return 'The Command Service could not be reached or did not answer in time. Nothing was linked; try again in a minute.';
    default:
      return `The Command Service refused: ${error.serviceMessage ?? error.message}`;
  }
}

const title = { type: 'plain_text' as const, text: 'Link your account' };
const close = { type: 'plain_text' as const, text: 'Close' };

/** The button that turns the form from signing in to pasting a token and back; its value names the way. */
export const LINK_WAY_ACTION = 'link:way';

/** Which of the two ways of linking a form asks for: a sign-in, or a pasted token. */
export type LinkWay = 'sign-in' | 'token';

function input(block: string, label: string, hint?: string, initial?: string, optional = false): View['blocks'][number] {
  return {
    type: 'input',
    block_id: block,
    // Each form asks for one way of linking, so what it needs is needed: Slack marks only the rest "(optional)".
    optional,
    label: { type: 'plain_text', text: label },
    element: { type: 'plain_text_input', action_id: 'value', ...(initial ? { initial_value: initial.slice(0, 3000) } : {}) },
    ...(hint ? { hint: { type: 'plain_text', text: hint } } : {}),
  };
}

/** What the user typed, to show again after the service refused it: never the password, nor a pasted token. */
export interface KeptFields {
  username?: string | undefined;
  authsource?: string | undefined;
}

/** What the form carries, within Slack's private_metadata limit: a replay that does not fit is dropped, not the form. */
function metadataThatFits(metadata: LinkMetadata): string {
  const text = JSON.stringify(metadata);
  return text.length <= LIMITS.privateMetadata ? text : JSON.stringify({ command: metadata.command } satisfies LinkMetadata);
}

/**
 * The sign-in form (username and password needed, the authentication source not) or, with users'
 * own tokens, the token form (the token needed), each with a button to the other. One way per form,
 * so that Slack's "(optional)" marks only what is: with both in one form, every field had it.
 */
export function linkModal(
  metadata: LinkMetadata,
  problem?: string,
  kept: KeptFields = {},
  mode: LinkMode = 'user-tokens',
  way: LinkWay = 'sign-in',
): View {
  const trusted = mode === 'trusted-app';
  const byToken = way === 'token' && !trusted;
  const switchTo = (to: LinkWay, text: string) => ({
    type: 'actions' as const,
    block_id: 'link:way',
    elements: [{ type: 'button' as const, action_id: LINK_WAY_ACTION, text: { type: 'plain_text' as const, text }, value: to }],
  });
  const intro = trusted
    ? 'countersign asks the Command Service on your behalf as an application the service trusts. Sign in once, so that it knows who you are: it keeps your username, never your password or a token, and will not ask again.'
    : 'countersign asks the Command Service on your behalf. Sign in with your Command Service username and password, or paste a token the service gave you. countersign keeps only the token, encrypted, never your password.';
  return {
    type: 'modal',
    callback_id: LINK_CALLBACK,
    private_metadata: metadataThatFits(metadata),
    title,
    submit: { type: 'plain_text', text: byToken ? 'Link' : 'Sign in' },
    close,
    blocks: [
      section(intro),
      // The service's words may be in the problem: rich text shows them exactly.
      ...(problem ? [{ ...richText([[emoji('warning'), ' ', oneLine(problem, 500)]]), block_id: LINK_PROBLEM_BLOCK }] : []),
      ...(byToken
        ? [
            input(
              LINK_FIELDS.token.block,
              'Token',
              `A Command Service token that may ${commandWords(metadata.command)}. Slack shows it as you paste it; countersign checks it with a harmless search and keeps it encrypted.`,
            ),
            switchTo('sign-in', 'Sign in with a password instead'),
          ]
        : [
            input(LINK_FIELDS.username.block, 'Username', undefined, kept.username),
            input(
              LINK_FIELDS.password.block,
              'Password',
              // plain_text_input has no hidden mode: say so, rather than let it look like a password field.
              trusted
                ? 'Slack cannot hide a password: it shows here as you type it, to you alone. countersign sends it once to the service to check who you are, and keeps nothing of it.'
                : 'Slack cannot hide a password: it shows here as you type it, to you alone. countersign sends it once to the service and keeps nothing of it.',
            ),
            input(
              LINK_FIELDS.authsource.block,
              'Authentication source',
              'Only if you sign in through a directory, e.g. an LDAP directory such as corp-ldap.',
              kept.authsource,
              true,
            ),
            // A token says nothing of whose it is, so the trusted mode does not offer one.
            ...(trusted ? [] : [switchTo('token', 'Paste a token instead')]),
          ]),
    ],
  };
}

export function linkProgress(text: string): View {
  return { type: 'modal', callback_id: LINK_CALLBACK, title, close, blocks: [section(text)] };
}

/** `how`: signed in (the service gave a token) or a pasted token. */
export function linkDone(commands: readonly ServiceCommandName[], checked: boolean, how: 'login' | 'token' = 'token'): View {
  const what = commands.map((c) => commandWords(c)).join(' and ');
  const lines = [
    `:white_check_mark: Linked: countersign can ${what} for you.`,
    how === 'login'
      ? 'You are signed in: countersign keeps the token the Command Service gave it, never your password.'
      : checked
        ? 'The Command Service accepted the token.'
        : 'It will be checked the first time you use it.',
  ];
  return {
    type: 'modal',
    callback_id: LINK_CALLBACK,
    title,
    close,
    blocks: [section(lines.join(' ')), context('Type `/approvals logout` at any time to make countersign forget it.')],
  };
}

/** The modal once the identity is linked (trusted mode): the name calls are made for, shown exactly as typed. */
export function identityLinked(serviceUser: string, authsource: string | undefined, replaced: number): View {
  const name: Run[] = [richCode(oneLine(serviceUser, 100)), ...(authsource ? [' (', oneLine(authsource, 100), ')'] : [])];
  return {
    type: 'modal',
    callback_id: LINK_CALLBACK,
    title,
    close,
    blocks: [
      richText([
        [emoji('white_check_mark'), ' Linked as ', ...name, '.'],
        [
          'countersign now asks the Command Service for you with its own sign-in, naming you as this user: the link does not expire, and you will not be asked again.',
        ],
        ...(replaced > 0 ? [['Your earlier token link is no longer needed and has been forgotten.']] : []),
      ]),
      context('Type `/approvals logout` at any time to make countersign forget it.'),
    ],
  };
}

type TokenLink = Pick<LinkSummary, 'command' | 'linkedAt' | 'source' | 'lastUsedAt' | 'lastOutcome' | 'account'>;

/** The service account a link acts as, shown exactly: " as `katherine.johnson` (corp-ldap)"; nothing where it is not known. */
export function accountRuns(account: LinkSummary['account']): Run[] {
  if (account === undefined) return [];
  return [
    ' as ',
    richCode(oneLine(account.serviceUser, 100)),
    ...(account.authsource ? [' (', oneLine(account.authsource, 100), ')'] : []),
  ];
}

/** What whoami shows: the mode, who calls are made for (trusted), and the token links. */
export interface WhoamiInput {
  mode: LinkMode;
  identity:
    | Pick<IdentityLink, 'serviceUser' | 'authsource' | 'source' | 'linkedAt' | 'lastUsedAt' | 'lastOutcome' | 'notPermitted'>
    | undefined;
  tokens: readonly TokenLink[];
  /** The trusted mode: what keeps countersign's own session with the service from working now. */
  trouble?: AppTrouble | undefined;
}

/** A time as whoami writes it: the one form of the product, in the reader's zone ("Fri 27 Nov 2026, 19:07 London time"). */
type At = (d: Date) => string;

function lastCall(link: Pick<TokenLink, 'lastUsedAt' | 'lastOutcome'>, refused: string, at: At): Run[] {
  if (link.lastOutcome === undefined || link.lastUsedAt === undefined) return ['not used yet'];
  return link.lastOutcome === 'ok'
    ? [`last call succeeded on ${at(link.lastUsedAt)}`]
    : [bold(refused), ` on ${at(link.lastUsedAt)}: link again`];
}

/**
 * How the last call for an identity went. Only a refusal that is about the user (the service does
 * not know them) asks them to link again; a command the service does not let them run is its
 * administrators' to grant, and the link goes on working for the rest.
 */
function lastIdentityCall(identity: NonNullable<WhoamiInput['identity']>, at: At): Run[] {
  const { lastOutcome, lastUsedAt } = identity;
  if (lastOutcome === 'not-permitted' && lastUsedAt !== undefined)
    return [
      `the service does not let you ${permittedWords(identity.notPermitted)} (last asked `,
      at(lastUsedAt),
      '); an administrator of the service grants it',
    ];
  return lastCall(
    { lastOutcome: lastOutcome === 'not-permitted' ? undefined : lastOutcome, lastUsedAt },
    'the service refused to act for you',
    at,
  );
}

/** The trusted mode's own trouble, in the words a refused command's answer uses; not about the reader. */
function troubleLine(trouble: AppTrouble, at: At): Paragraph {
  return trouble.kind === 'refused'
    ? [
        '• ',
        bold('The Command Service is refusing countersign’s own sign-in'),
        ` (since ${at(trouble.since)}`,
        '), so countersign cannot ask it anything for anyone right now. An administrator needs to fix that (countersign’s log says what to check); nothing you do changes it.',
      ]
    : [
        `• countersign cannot reach the Command Service to sign in (since ${at(trouble.since)}`,
        '); it keeps trying, and carries on by itself once the service answers.',
      ];
}

/**
 * What `whoami` shows: how this installation calls the service for the reader, what it holds for
 * them, since when, how the last call went, each time in the reader's own zone (`zone`, their Slack
 * profile's), written as every time of the product is. Never a token.
 */
export function renderWhoami(userId: string, status: WhoamiInput, commands: readonly ServiceCommandName[], zone = 'UTC'): Message {
  const at: At = (d) => readableInstant(d, zone);
  if (status.mode === 'user-tokens') {
    return richMessage([
      [
        user(userId),
        ', countersign calls the Command Service with your own token (the service makes tokens expire after a while); this is what countersign holds for you:',
      ],
      ...tokenLines(status.tokens, commands, at),
    ]);
  }
  const lines: Paragraph[] = [
    [
      user(userId),
      ', countersign calls the Command Service as an application the service trusts, naming the user it acts for; which commands you may use is up to the service.',
    ],
  ];
  const identity = status.identity;
  if (identity !== undefined) {
    lines.push([
      '• Linked as ',
      richCode(oneLine(identity.serviceUser, 100)),
      ...(identity.authsource ? [' (', oneLine(identity.authsource, 100), ')'] : []),
      `${identity.source === 'admin' ? ' by an admin' : ' by signing in'} on ${at(identity.linkedAt)}`,
      '; ',
      ...lastIdentityCall(identity, at),
      '. This link does not expire.',
    ]);
  } else if (status.tokens.length > 0) {
    // Switched from users' own tokens: what they had keeps working until it expires.
    lines.push(
      md(
        '• You are still linked with a token from before, used until it expires; then you will be asked to sign in once more, and not again.',
      ),
      ...tokenLines(status.tokens, commands, at),
    );
  } else {
    lines.push(['• ', ...md(`Not linked. Type \`${slashFor(commands[0] ?? 'findApprovals')} login\` and sign in once.`)]);
  }
  if (status.trouble !== undefined) lines.push(troubleLine(status.trouble, at));
  return richMessage(lines);
}

function tokenLines(links: readonly TokenLink[], commands: readonly ServiceCommandName[], at: At): Paragraph[] {
  return commands.map((command): Paragraph => {
    const link = links.find((l) => l.command === command);
    if (!link) return ['• ', ...md(`${commandPurpose(command)}: not linked. Type \`${slashFor(command)} login\` to link it.`)];
    const how = { login: 'by signing in', pasted: 'with a pasted token', admin: 'by an admin' }[link.source] ?? '';
    return [
      '• ',
      ...md(`${commandPurpose(command)}: linked ${how}`),
      ...accountRuns(link.account),
      ` on ${at(link.linkedAt)}`,
      '; ',
      ...lastCall(link, 'the service refused the token', at),
      '.',
    ];
  });
}

/** The answer to `logout`: what was forgotten, and whether a session at the service was ended too. */
export function renderLoggedOut(forgotten: { removed: number; endedAtService: number; identities?: number | undefined }): Message {
  const { removed, endedAtService } = forgotten;
  const identities = forgotten.identities ?? 0;
  const what = [
    ...(identities > 0 ? ['who you are in the Command Service'] : []),
    ...(removed > 0 ? [removed === 1 ? 'your token' : `your ${removed} tokens`] : []),
  ].join(' and ');
  const text =
    what !== ''
      ? `Done: countersign forgot ${what}${endedAtService > 0 ? ' and ended your session at the Command Service' : ''}. It can no longer act for you until you link again.`
      : 'countersign had nothing of yours to forget.';
  return { text: fallback(text), blocks: [section(text)] };
}
