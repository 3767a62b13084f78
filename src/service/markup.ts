/**
 * HTML and XML are read with htmlparser2's tokenizer, and only with it: a state machine that reads
 * each character once, whatever the input, and builds nothing (no tree, no stack of open
 * elements), so a hostile page or body costs time in proportion to its length and no more.
 * htmlparser2's Parser is not used: it keeps its open elements with Array.unshift, which makes a
 * page of nested tags cost time in the square of their number.
 */

import { decodeHTMLStrict } from 'entities';
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

const NOTHING = () => {};

/** Reads `text` once, telling `callbacks` what it meets; what a caller does not ask for is passed over. */
export function tokenize(text: string, mode: 'html' | 'xml', callbacks: Partial<TokenizerCallbacks>): void {
  const tokenizer = new Tokenizer(
    // Entities are left to the caller, which decodes text it keeps and never an attribute it drops.
    { xmlMode: mode === 'xml', decodeEntities: false },
    {
      onattribdata: NOTHING,
      onattribentity: NOTHING,
      onattribend: NOTHING,
      onattribname: NOTHING,
      oncdata: NOTHING,
      onclosetag: NOTHING,
      oncomment: NOTHING,
      ondeclaration: NOTHING,
      onend: NOTHING,
      onopentagend: NOTHING,
      onopentagname: NOTHING,
      onprocessinginstruction: NOTHING,
      onselfclosingtag: NOTHING,
      ontext: NOTHING,
      ontextentity: NOTHING,
      ...callbacks,
    },
  );
  tokenizer.write(text);
  tokenizer.end();
}

/**
 * Character references decoded as a browser decodes them, each only when it ends in `;`: an
 * unterminated `&not` or `&copy` in a quoted query string is text, not a character.
 */
export function decodeEntities(text: string): string {
  return text.includes('&') ? decodeHTMLStrict(text) : text;
}
