/**
 * Takes a request's secrets out of a text of its answer: a proxy or firewall page may quote the
 * request back (its headers, its body), and an error reaches logs and users.
 */

import { escapeXml, escapeXmlValue } from './formats.js';

const REDACTED = '[redacted]';

/**
 * Each secret in every form it may be quoted in: as sent, percent-encoded, XML-escaped (line breaks
 * and tabs as themselves, or as references, as a decision's body sends them) and JSON-escaped; and a text that ends inside one (an error page is read only so far) loses that end too.
 */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const forms = [
    ...new Set(
      secrets
        .filter((v) => v !== '')
        .flatMap((v) => [v, encodeURIComponent(v), escapeXml(v), escapeXmlValue(v), JSON.stringify(v).slice(1, -1)]),
    ),
  ].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    for (const form of forms)
      for (let k = Math.min(form.length - 1, out.length); k >= 4; k--)
        if (out.endsWith(form.slice(0, k))) {
          out = `${out.slice(0, -k)}${REDACTED}`;
          break;
        }
    return out;
  };
}

/** Shorter than this, a user's text is not taken out of an answer's words by its value (it would take out common words): its parameter still is. */
const MIN_USER_TEXT = 6;

/**
 * Takes a user's own words out of a text of an answer, for the log: the values of the parameters
 * that carried them, wherever the text quotes a query (`comment=…` in a Query String line), and the
 * words themselves in every form they may be quoted in, when they are long enough to tell apart.
 */
export function userTextRedactor(params: readonly string[], values: readonly string[]): (text: string) => string {
  const byValue = redactor(values.filter((v) => v.trim().length >= MIN_USER_TEXT));
  if (params.length === 0) return byValue;
  const names = params.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const inQuery = new RegExp(`(^|[?&;\\s])(${names})=[^&\\s]*`, 'gi');
  return (text) => byValue(text).replace(inQuery, `$1$2=${REDACTED}`);
}
