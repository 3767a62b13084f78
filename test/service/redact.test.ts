/**
 * A user's words and a request's secrets taken out of what an answer quotes back, in every form the
 * request carried them: a decision's comment goes out XML-escaped with its line breaks and tabs as
 * character references, and a page quoting that body must not bring the comment into the log.
 */

import { describe, expect, it } from 'vitest';
import { escapeXmlValue } from '../../src/service/formats.js';
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
