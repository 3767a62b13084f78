/**
 * A user's words and a request's secrets taken out of what an answer quotes back, in every form the
 * request carried them: a decision's comment goes out XML-escaped with its line breaks and tabs as
 * character references, and a page quoting that body must not bring the comment into the log.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeXml, escapeXmlValue } from '../../src/service/formats.js';
import { redactor, userTextRedactor } from '../../src/service/redact.js';

const COMMENT = 'Not approved:\n"quarterly" <review> & sign-off\tpending';

describe('redacting what an answer quotes back', () => {
  it('takes a multi-line comment out in the form an XML body carried it', () => {
    const page = `<pre>POST body: <comment>${escapeXmlValue(COMMENT)}</comment></pre>`;
    const out = userTextRedactor(['comment'], [COMMENT])(page);
    expect(out).not.toContain('quarterly');
    expect(out).toContain('[redacted]');
  });

  it('takes a secret out as sent, percent-encoded, XML-escaped (both ways) and JSON-escaped', () => {
    const secret = 'tok"en\n<1>&x';
    const redact = redactor([secret]);
    for (const form of [secret, encodeURIComponent(secret), escapeXmlValue(secret), JSON.stringify(secret).slice(1, -1)])
      expect(redact(`before ${form} after`)).toBe('before [redacted] after');
  });
});

/** Percent-encoding as some servers and proxies write it: every byte but the unreserved ones, hex in lower case. */
function lowerHex(value: string): string {
  return encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
}

/** As an HTML form or a servlet writes a query: application/x-www-form-urlencoded, a space as "+". */
function formEncoded(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** A JSON writer that escapes "/" and everything outside ASCII, as Java's often do. */
function jsonAscii(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(/\//g, '\\/')
    .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Each way a page may quote a secret back: as sent or as a server read it, escaped for where the page shows it. */
const ECHOES: ReadonlyArray<readonly [string, (v: string) => string]> = [
  ['as sent', (v) => v],
  ['percent-encoded, upper-case hex', encodeURIComponent],
  ['percent-encoded, lower-case hex', lowerHex],
  ['form-encoded (a space as +)', formEncoded],
  ['percent-encoded twice', (v) => encodeURIComponent(encodeURIComponent(v))],
  ['a query read with + as a space', (v) => v.replace(/\+/g, ' ')],
  ['XML-escaped', escapeXml],
  ['XML-escaped, line breaks as references', escapeXmlValue],
  ['JSON-escaped', (v) => JSON.stringify(v).slice(1, -1)],
  ['JSON-escaped, / and non-ASCII as \\u', jsonAscii],
  ['a form-encoded query in an HTML page', (v) => escapeXml(formEncoded(v)).replace(/'/g, '&#39;')],
  ['lower-case percent-encoding in a JSON string', (v) => JSON.stringify(lowerHex(v)).slice(1, -1)],
];

describe('redacting a secret however it is quoted back', () => {
  const secret = 'ws3101+a/b=c:-28aff589 é&x';

  for (const [how, echo] of ECHOES)
    it(`takes it out ${how}`, () => {
      const page = `Query String=cmd=loginUser&password=${echo(secret)}&format=json`;
      expect(redactor([secret])(page)).toBe('Query String=cmd=loginUser&password=[redacted]&format=json');
    });

  it('takes out a lower-case %2b and a + read as a space, the two the review found', () => {
    const redact = redactor(['tok+en/1=']);
    expect(redact('token=tok%2ben%2f1%3d')).toBe('token=[redacted]');
    expect(redact('token=tok en/1=')).toBe('token=[redacted]');
  });

  it('takes out the start of one that a page cut short, in any of those forms, even inside an escape', () => {
    const redact = redactor([secret]);
    for (const [how, echo] of ECHOES) {
      const whole = echo(secret);
      for (const cut of [whole.length - 1, whole.length - 2, Math.ceil(whole.length / 2)])
        expect(redact(`page: ${whole.slice(0, cut)}`), `${how}, cut at ${cut}`).toBe('page: [redacted]');
    }
  });

  it('leaves text that holds no secret as it is, escapes and all', () => {
    const text = 'Query String=cmd=findApprovals&amp;name=a%2bb+c&#39;d\\u00e9 "x"';
    expect(redactor(['ws3101+a/b=c'])(text)).toBe(text);
  });

  const SECRET_CHARS = [...'abcXYZ019+/=:%&<>"\'  é\n\t~*!', '😀'];
  // Nothing that continues an escape: a secret ending in "&" followed by "#" may be "&#" cut short, and is taken out with it.
  const AROUND = [...'-_.,;()[]{}?|'];
  const text = (chars: string[], min: number, max: number) =>
    fc.array(fc.constantFrom(...chars), { minLength: min, maxLength: max }).map((a) => a.join(''));

  it('takes out any secret, in any of those forms, wherever it stands (property)', () => {
    fc.assert(
      fc.property(
        text(SECRET_CHARS, 6, 40),
        text(AROUND, 0, 20),
        text(AROUND, 0, 20),
        fc.constantFrom(...ECHOES),
        (s, before, after, [, echo]) => {
          const out = redactor([s])(`${before}${echo(s)}${after}`);
          expect(out).toBe(`${before}[redacted]${after}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  // Cut after its first character at least: an escape cut short before that holds no character of it.
  it('takes out what is left of one cut short at the end, in any of those forms (property)', () => {
    fc.assert(
      fc.property(
        text(SECRET_CHARS, 6, 40),
        text(AROUND, 0, 20),
        fc.constantFrom(...ECHOES),
        fc.double({ min: 0.3, max: 0.99, noNaN: true }),
        (s, before, [, echo], share) => {
          const whole = echo(s);
          const cut = Math.max(Math.floor(whole.length * share), echo([...s][0] as string).length, 4);
          const out = redactor([s])(`${before}${whole.slice(0, cut)}`);
          expect(out).toBe(`${before}[redacted]`);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
