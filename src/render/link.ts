/**
 * The "link your account" modal: sign in with the service's username and password (the app keeps
 * only the token the service returns), or paste a token. Slack inputs cannot hide what is typed,
 * so the modal says so, and the password is never shown back, logged or kept.
 */

import type { View } from '@slack/types';
import type { ServiceCommandName } from '../store/index.js';
import { code, context, inert, section } from './blocks.js';

export const LINK_CALLBACK = 'link-account';
export const LINK_FIELDS = {
  username: { block: 'username', action: 'value' },
  password: { block: 'password', action: 'value' },
  authsource: { block: 'authsource', action: 'value' },
  token: { block: 'token', action: 'value' },
} as const;

export interface LinkMetadata {
  command: ServiceCommandName;
}

const title = { type: 'plain_text' as const, text: 'Link your account' };
const close = { type: 'plain_text' as const, text: 'Close' };

function input(block: string, label: string, hint?: string): View['blocks'][number] {
  return {
    type: 'input',
    block_id: block,
    optional: true,
    label: { type: 'plain_text', text: label },
    element: { type: 'plain_text_input', action_id: 'value' },
    ...(hint ? { hint: { type: 'plain_text', text: hint } } : {}),
  };
}

export function linkModal(metadata: LinkMetadata, problem?: string): View {
  return {
    type: 'modal',
    callback_id: LINK_CALLBACK,
    private_metadata: JSON.stringify(metadata),
    title,
    submit: { type: 'plain_text', text: 'Link' },
    close,
    blocks: [
      section(
        `countersign asks the Command Service on your behalf, with your own token. Sign in with your service account (countersign keeps only the token the service returns, never the password), or paste a token for ${code(metadata.command)}.`,
      ),
      ...(problem ? [section(`:warning: ${inert(problem, 500)}`)] : []),
      input(LINK_FIELDS.username.block, 'Username'),
      input(
        LINK_FIELDS.password.block,
        'Password',
        'Slack shows what you type here; countersign sends it once to the service and keeps nothing of it.',
      ),
      input(LINK_FIELDS.authsource.block, 'Authentication source', 'Only if your organisation uses one, e.g. an LDAP directory.'),
      input(LINK_FIELDS.token.block, 'Or paste a token'),
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
