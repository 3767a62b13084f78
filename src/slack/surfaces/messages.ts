/** The envelopes a message goes in through a response_url: to the asker alone, to the channel, or in place of the one clicked. */

import type { RespondArguments } from '@slack/bolt';
import type { Message } from '../../render/blocks.js';

export const ephemeral = (m: Message): RespondArguments => ({
  response_type: 'ephemeral',
  replace_original: false,
  text: m.text,
  blocks: m.blocks,
});

export const inChannel = (m: Message): RespondArguments => ({
  response_type: 'in_channel',
  replace_original: false,
  text: m.text,
  blocks: m.blocks,
});

export const replace = (m: Message): RespondArguments => ({ replace_original: true, text: m.text, blocks: m.blocks });

/** How a post's JSON opens for the envelope `ephemeral` or `replace` would give a message, its own fields to follow. */
export function openingOf(how: 'ephemeral' | 'replace'): string {
  return how === 'replace' ? '{"replace_original":true,' : '{"response_type":"ephemeral","replace_original":false,';
}
