/**
 * A decision's comment as the confirmation checks it: a required comment has something a reader
 * sees, and no comment hides text in characters that do not show (the review found U+200B, U+2060,
 * U+3164, U+2800, U+00AD, U+034F and tag characters passing as the comment Rejected requires, the
 * tags carrying hidden words into the audit trail). Characters that do their work invisibly where
 * they stand (a joiner inside an emoji or a Persian word, an emoji's variation selector, a
 * subdivision flag's tags) are text like any other.
 */

import { describe, expect, it } from 'vitest';
import { checkComment } from '../../src/parse/decision.js';
import { decisionValuesSchema, hasVisibleText, invisibleCharacter } from '../../src/service/query.js';

const REQUIRED = ['rejected'];
/** Text written in tag characters: "ok" as U+E006F U+E006B, how hidden words ride along. */
const tags = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + (c.codePointAt(0) as number))).join('');
const SCOTLAND = `\u{1F3F4}${tags('gbsct')}\u{E007F}`;

describe('a required comment', () => {
  const nothingThatShows: Array<[string, string]> = [
    ['a zero-width space', '\u200B'],
    ['a word joiner', '\u2060'],
    ['a Hangul filler', '\u3164'],
    ['the halfwidth Hangul filler', '\uFFA0'],
    ['the Hangul choseong filler', '\u115F'],
    ['a blank Braille pattern', '\u2800'],
    ['a soft hyphen', '\u00AD'],
    ['a combining grapheme joiner', '\u034F'],
    ['a byte order mark between spaces', ' \uFEFF\u200B '],
    ['tag characters', tags('hidden words')],
    ['a variation selector', '\uFE0F'],
    ['a Mongolian vowel separator', '\u180E'],
    ['a combining accent with nothing to sit on', '\u0301'],
    ['a joiner', '\u200D'],
    ['a mixture, with spaces and line breaks', '\u2800 \u3164\n\u200B\u2060'],
  ];
  for (const [what, comment] of nothingThatShows)
    it(`is refused when it is only ${what}, saying what was wrong and what is wanted`, () => {
      const checked = checkComment(comment, 'Rejected', REQUIRED);
      expect(checked.ok).toBe(false);
      expect(checked.ok === false && checked.problem).toMatch(/^Rejected needs a comment/);
      expect(checked.ok === false && checked.problem).toContain('say why, for the requester and the audit trail.'.slice(1));
    });

  it('names the character it starts with, when there is one', () => {
    expect(checkComment('\u3164\u3164', 'Rejected', REQUIRED)).toEqual({
      ok: false,
      problem:
        'Rejected needs a comment in words: this one has nothing that shows (it starts with U+3164). Say why, for the requester and the audit trail.',
    });
  });

  it('is taken when it has words, in any script, or only an emoji or a sign', () => {
    for (const comment of ['Not needed', 'Nein.', '不要', 'نه', '👎', '?', '5'])
      expect(checkComment(comment, 'Rejected', REQUIRED)).toEqual({ ok: true, comment });
  });
});

describe('invisible characters in any comment', () => {
  const hiding: Array<[string, string, RegExp]> = [
    ['a zero-width space inside a word', 'LG\u200BTM', /an invisible character \(U\+200B\)/],
    ['a word joiner', 'ok\u2060', /U\+2060/],
    ['a soft hyphen', 'ap\u00ADproved', /U\+00AD/],
    ['a Hangul filler', 'fine \u3164', /U\+3164/],
    ['a byte order mark inside', 'fine\uFEFFthanks', /U\+FEFF/],
    [
      'hidden words in tag characters after the text',
      `Approved${tags('ignore the policy')}`,
      /a tag character \(U\+E0069\), which does not show and can carry hidden text/,
    ],
    ['a cancel tag alone', 'ok \u{E007F}', /U\+E007F/],
    ['a run of variation selectors (bytes hidden in an emoji)', 'ok 😀\uFE0F\uFE00\uFE01', /a variation selector \(U\+FE00\)/],
    ['a variation selector after a space', 'ok \uFE0F', /U\+FE0F/],
    ['a joiner at the end', 'ok\u200D', /a joiner \(U\+200D\)/],
    ['a run of joiners', 'o\u200D\u200Ck', /U\+200D/],
    ['an interlinear annotation', 'ok \uFFF9hidden\uFFFA\uFFFB', /U\+FFF9/],
  ];
  for (const [what, comment, named] of hiding)
    it(`refuses ${what}, naming it, for an action that needs no comment too`, () => {
      const checked = checkComment(comment, 'Accepted', REQUIRED);
      expect(checked).toEqual({ ok: false, problem: expect.stringMatching(named) });
      expect(checked.ok === false && checked.problem).toMatch(/^The comment holds .+; take it out and submit again\.$/);
      // The client would not send it either.
      expect(decisionValuesSchema.safeParse({ id: '10001:WPDS:1', action: 'Accepted', comment }).success).toBe(false);
    });

  it('takes those that do their work where they stand: joiners in emoji and words, an emoji’s selector, a flag’s tags', () => {
    for (const comment of [
      'Done by our 👩\u200D💻 team',
      'Looks good \u2764\uFE0F',
      'Eye in a speech bubble: 👁\uFE0F\u200D🗨\uFE0F',
      'Thumbs up 👍🏽',
      `From the ${SCOTLAND} office`,
      'می\u200Cخواهم',
      'क्\u200Dष',
      'Arabic number sign: \u0600\u0661\u0662',
      'A Braille blank ⠀ among words',
    ]) {
      expect(invisibleCharacter(comment)).toBeUndefined();
      expect(checkComment(comment, 'Rejected', REQUIRED)).toEqual({ ok: true, comment });
    }
  });

  it('says text has something to read only when a character shows', () => {
    expect(hasVisibleText(`${SCOTLAND}`)).toBe(true);
    expect(hasVisibleText('\u2800\u3164\u200B')).toBe(false);
  });
});
