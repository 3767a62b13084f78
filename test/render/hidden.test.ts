/**
 * Text from the service may hold characters that act instead of showing: controls, and the
 * bidirectional overrides that make "Invoice U+202E gpj.exe" read "Invoice exe.jpg". Every
 * renderer shows them as a visible mark, in blocks and in the fallback alike, whoever reads it.
 */

import { describe, expect, it } from 'vitest';
import { printable } from '../../src/admin/output.js';
import { header, inert, NOT_PLAIN, plain, revealHidden } from '../../src/render/blocks.js';
import { renderCollectFailedDm, renderCollectStatus } from '../../src/render/collect.js';
import { plainOf, richText } from '../../src/render/rich.js';
import { MAYBE_INVISIBLE } from '../../src/service/query.js';

const RAW = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('hidden characters from the service', () => {
  it('are written as marks; line breaks, tabs and every other character stay as they are', () => {
    expect(revealHidden('Invoice \u202Egpj.exe')).toBe('Invoice [U+202E]gpj.exe');
    expect(revealHidden('a\u0000b\u001bc\u0085d\u2066e\u2069f\u200fg')).toBe('a[U+0000]b[U+001B]c[U+0085]d[U+2066]e[U+2069]f[U+200F]g');
    expect(revealHidden('two\nlines\r\nand\ta tab, Ünïcödé, 👩‍💻, עברית')).toBe('two\nlines\r\nand\ta tab, Ünïcödé, 👩‍💻, עברית');
  });

  it('are none of the characters text is shown as it is for without a longer look', () => {
    for (let c = 0; c <= 0xffff; c++) {
      const char = String.fromCharCode(c);
      if (NOT_PLAIN.test(char)) continue;
      expect(RAW.test(char) || MAYBE_INVISIBLE.test(char), `U+${c.toString(16)}`).toBe(false);
    }
  });

  it('never reach Slack raw, in rich text, plain text, mrkdwn, headers or the fallback', () => {
    const name = 'Invoice \u202Egpj.exe';
    expect(JSON.stringify(richText([[name]]))).toContain('Invoice [U+202E]gpj.exe');
    expect(plainOf([[name, { text: name, style: { bold: true } }]])).not.toMatch(RAW);
    expect(plain(name, 75).text).toBe('Invoice [U+202E]gpj.exe');
    expect(header(name).text.text).toBe('Invoice [U+202E]gpj.exe');
    expect(inert(name, 80)).toBe('Invoice [U+202E]gpj.exe');
  });

  it('in a collector’s name posted to a whole channel, and in the DM when it aborts', () => {
    const collector = 'AD \u202Esrecca';
    const at = new Date('2026-11-22T10:00:00Z');
    const runs = [{ runId: '41', collector, state: 'Aborted' as const }];
    const status = renderCollectStatus({
      userId: 'UOSCAR',
      query: { name: collector },
      runs,
      startedAt: at,
      now: at,
      live: { kind: 'finished' },
    });
    const dm = renderCollectFailedDm({ channelId: 'C0OPS', query: { name: collector }, runs });
    for (const message of [status, dm]) {
      expect(JSON.stringify(message)).not.toMatch(/\\u202e/i);
      expect(`${message.text}${JSON.stringify(message.blocks)}`).not.toMatch(RAW);
      expect(JSON.stringify(message.blocks)).toContain('AD [U+202E]srecca');
    }
  });
});

describe('invisible characters from the service', () => {
  const tags = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + (c.codePointAt(0) as number))).join('');

  it('are written as marks out of their place: zero-width and format characters, fillers, tags spelling hidden words, runs of selectors', () => {
    expect(revealHidden('Invoice\u200Bpaid')).toBe('Invoice[U+200B]paid');
    expect(revealHidden('word\u2060joiner, soft\u00ADhyphen, \u3164filler, \uFEFFbom')).toBe(
      'word[U+2060]joiner, soft[U+00AD]hyphen, [U+3164]filler, [U+FEFF]bom',
    );
    expect(revealHidden(`Approve${tags('hi')}`)).toBe('Approve[U+E0068][U+E0069]');
    expect(revealHidden('ok 😀\uFE0F\uFE00')).toBe('ok 😀\uFE0F[U+FE00]');
    expect(revealHidden('end\u200D')).toBe('end[U+200D]');
  });

  it('are left to do their work where they stand: an emoji’s joiners and selector, a flag’s tags, a Persian word’s non-joiner', () => {
    const text = `👩\u200D💻 \u2764\uFE0F \u{1F3F4}${tags('gbsct')}\u{E007F} می\u200Cخواهم`;
    expect(revealHidden(text)).toBe(text);
  });

  it('never reach Slack hidden, in rich text, plain text, headers or the fallback', () => {
    const name = `Add Access${tags('approve all')} for\u200B Bob`;
    const shown =
      'Add Access[U+E0061][U+E0070][U+E0070][U+E0072][U+E006F][U+E0076][U+E0065][U+E0020][U+E0061][U+E006C][U+E006C] for[U+200B] Bob';
    expect(JSON.stringify(richText([[name]]))).toContain(JSON.stringify(shown).slice(1, -1));
    expect(plain(name, 200).text).toBe(shown);
    expect(header(name).text.text).toBe(shown);
    expect(plainOf([[name]])).toContain('[U+200B]');
  });

  it('are escaped in what the CLI prints from the store, a JSON line staying JSON', () => {
    const comment = `Approved${tags('hi')}\u200B 👩\u200D💻`;
    const printed = printable(comment);
    expect(printed).toBe('Approved\\udb40\\udc68\\udb40\\udc69\\u200b 👩\u200D💻');
    expect(JSON.parse(printable(JSON.stringify({ comment })))).toEqual({ comment });
  });
});
