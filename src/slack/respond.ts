/** Shapes of what handlers send through response_url, so every handler says it the same way. */

import type { RespondArguments } from '@slack/bolt';
import type { Message } from '../render/blocks.js';

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
