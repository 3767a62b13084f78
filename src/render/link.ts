/**
 * The "link your account" modal: sign in with the service's username and password (the app keeps
 * only the token the service returns), or paste a token. Slack inputs cannot hide what is typed,
 * so the modal says so, and the password is never shown back, logged or kept.
 */

import type { View } from '@slack/types';
import type { LinkMetadata, Replay } from '../parse/buttons.js';
import { slashFor } from '../parse/slash.js';
import { isServiceError } from '../service/errors.js';
import type { ServiceCommandName } from '../store/types.js';
import { code, context, fallback, LIMITS, type Message, section } from './blocks.js';
import { bold, emoji, md, oneLine, type Paragraph, type Run, richMessage, richText, user, when } from './rich.js';

export const LINK_CALLBACK = 'link-account';
export const LINK_FIELDS = {
  username: { block: 'username', action: 'value' },
  password: { block: 'password', action: 'value' },
  authsource: { block: 'authsource', action: 'value' },
  token: { block: 'token', action: 'value' },
} as const;

export const RELINK_ACTION = 'account:relink';

/** The "Link again" button's value; undefined when the query is too long to carry. */
export function encodeRelink(replay: Replay): string | undefined {
  const value = JSON.stringify(replay);
  return value.length <= LIMITS.buttonValue ? value : undefined;
}

/** Why linking failed, in words for the modal. */
export function linkProblem(error: unknown): string {
  if (!isServiceError(error)) return 'Something went wrong inside countersign; nothing was linked. Please try again.';
  switch (error.kind) {
    case 'login-failed':
      return `The Command Service did not accept that username and password: ${error.serviceMessage ?? ''}`.trim();
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

function input(block: string, label: string, hint?: string, initial?: string): View['blocks'][number] {
  return {
    type: 'input',
    block_id: block,
    // Both ways of linking share one form, so no single field is needed by both; the headings say which are needed for which.
    optional: true,
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

export function linkModal(metadata: LinkMetadata, problem?: string, kept: KeptFields = {}): View {
  return {
    type: 'modal',
    callback_id: LINK_CALLBACK,
    private_metadata: JSON.stringify(metadata),
    title,
    submit: { type: 'plain_text', text: 'Link' },
    close,
    blocks: [
      section(
        'countersign asks the Command Service on your behalf. Link your account in one of two ways; countersign keeps only the token the service gives it, never your password.',
      ),
      // The service's words may be in the problem: rich text shows them exactly.
      ...(problem ? [richText([[emoji('warning'), ' ', oneLine(problem, 500)]])] : []),
      section(
        '*1. Sign in* with your Command Service account: username and password are needed; the authentication source only if your organisation uses one.',
      ),
      input(LINK_FIELDS.username.block, 'Username', undefined, kept.username),
      input(
        LINK_FIELDS.password.block,
        'Password',
        'Slack shows what you type here; countersign sends it once to the service and keeps nothing of it.',
      ),
      input(
        LINK_FIELDS.authsource.block,
        'Authentication source',
        'Only if your organisation uses one, e.g. an LDAP directory such as corp-ldap.',
        kept.authsource,
      ),
      section(`*2. Or paste a token* for \`${metadata.command}\` instead, and leave the fields above empty.`),
      input(LINK_FIELDS.token.block, 'Token'),
    ],
  };
}

export function linkProgress(text: string): View {
  return { type: 'modal', callback_id: LINK_CALLBACK, title, close, blocks: [section(text)] };
}

export function linkDone(commands: readonly ServiceCommandName[], checked: boolean): View {
  const what = commands.map((c) => code(c)).join(' and ');
  const lines = [
    `:white_check_mark: Linked for ${what}.`,
    checked ? 'The Command Service accepted the token.' : 'It will be checked the first time you use it.',
  ];
  return {
    type: 'modal',
    callback_id: LINK_CALLBACK,
    title,
    close,
    blocks: [section(lines.join(' ')), context('Type `/approvals logout` at any time to make countersign forget it.')],
  };
}

/** What `whoami` shows: which commands are linked, since when, how the last call went, each time in the reader's own zone. Never a token. */
export function renderWhoami(
  userId: string,
  links: ReadonlyArray<{
    command: ServiceCommandName;
    linkedAt: Date;
    source: string;
    lastUsedAt: Date | undefined;
    lastOutcome: string | undefined;
  }>,
  commands: readonly ServiceCommandName[],
): Message {
  const at = (d: Date) => when(d, '{date_short_pretty} {time}');
  const lines = commands.map((command): Paragraph => {
    const link = links.find((l) => l.command === command);
    if (!link) return ['• ', ...md(`\`${command}\`: not linked. Type \`${slashFor(command)} login\` to link it.`)];
    const how = { login: 'by signing in', pasted: 'with a pasted token', admin: 'by an admin' }[link.source] ?? '';
    const last: Run[] =
      link.lastOutcome === undefined || link.lastUsedAt === undefined
        ? ['not used yet']
        : link.lastOutcome === 'ok'
          ? ['last call succeeded ', at(link.lastUsedAt)]
          : [bold('the service refused the token'), ' ', at(link.lastUsedAt), ': link again'];
    return ['• ', ...md(`\`${command}\`: linked ${how} `), at(link.linkedAt), '; ', ...last, '.'];
  });
  return richMessage([[user(userId), ', this is what countersign holds for you:'], ...lines]);
}

/** The answer to `logout`: what was forgotten, and whether a session at the service was ended too. */
export function renderLoggedOut(forgotten: { removed: number; endedAtService: number }): Message {
  const { removed, endedAtService } = forgotten;
  const text =
    removed > 0
      ? `Done: countersign forgot your ${removed === 1 ? 'token' : `${removed} tokens`}${endedAtService > 0 ? ' and ended your session at the Command Service' : ''}. It can no longer act for you until you link again.`
      : 'countersign had no token of yours to forget.';
  return { text: fallback(text), blocks: [section(text)] };
}
