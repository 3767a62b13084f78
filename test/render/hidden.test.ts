/**
 * Text from the service may hold characters that act instead of showing: controls, and the
 * bidirectional overrides that make "Invoice U+202E gpj.exe" read "Invoice exe.jpg". Every
 * renderer shows them as a visible mark, in blocks and in the fallback alike, whoever reads it.
 */

import { describe, expect, it } from 'vitest';
import { header, inert, plain, revealHidden } from '../../src/render/blocks.js';
import { renderCollectFailedDm, renderCollectStatus } from '../../src/render/collect.js';
import { plainOf, richText } from '../../src/render/rich.js';

const RAW = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('hidden characters from the service', () => {
  it('are written as marks; line breaks, tabs and every other character stay as they are', () => {
    expect(revealHidden('Invoice \u202Egpj.exe')).toBe('Invoice [U+202E]gpj.exe');
    expect(revealHidden('a\u0000b\u001bc\u0085d\u2066e\u2069f\u200fg')).toBe('a[U+0000]b[U+001B]c[U+0085]d[U+2066]e[U+2069]f[U+200F]g');
    expect(revealHidden('two\nlines\r\nand\ta tab, Ünïcödé, 👩‍💻, עברית')).toBe('two\nlines\r\nand\ta tab, Ünïcödé, 👩‍💻, עברית');
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
