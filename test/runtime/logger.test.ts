/** The logger's own redaction of response_url, through the real logger at debug (as Bolt's debug lines reach it). */
import { describe, expect, it } from 'vitest';
import { createLogger, redactResponseUrls, SaidOncePerMinute } from '../../src/runtime/logger.js';

const HOOK = 'https://hooks.slack.com/actions/T0001/1234567890/AbCdEfGhIjKlMnOp';
const SECRET_PART = 'AbCdEfGhIjKlMnOp';

function debugLogger() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level: 'debug', write: (l) => lines.push(l) }) };
}

describe('response_url redaction', () => {
  it('cuts it out of a debug message quoting a request body, as Bolt’s Web API client writes one', () => {
    const { lines, logger } = debugLogger();
    const metadata = JSON.stringify({ command: 'findApprovals', responseUrl: HOOK });
    logger.child({ component: 'bolt' }).debug({}, `http request body: ${JSON.stringify({ view: { private_metadata: metadata } })}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(SECRET_PART);
    expect(lines[0]).not.toContain('hooks.slack.com');
    expect(lines[0]).toContain('[redacted response_url]');
  });

  it('redacts it under any key that names it, and inside any string field, error or binding, at every level', () => {
    const { lines, logger } = debugLogger();
    const child = logger.child({ origin: `from ${HOOK}` });
    child.debug({ response_url: HOOK, nested: { responseUrl: HOOK, note: `posting to ${HOOK} now` } }, 'debug');
    child.info({ list: [HOOK] }, `info ${HOOK}`);
    child.warn({ error: new Error(`POST ${HOOK} failed`) }, 'warn');
    child.error({}, `error ${HOOK.replace('https://', 'https:\\/\\/').replaceAll('/', '\\/')}`);
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      expect(line).not.toContain(SECRET_PART);
      expect(line).toContain('[redacted');
    }
    expect(JSON.parse(lines[0] as string)).toMatchObject({ response_url: '[redacted]', nested: { responseUrl: '[redacted]' } });
  });

  it('scrubs a child’s bindings as it scrubs a line’s fields (pino formats them apart)', () => {
    const { lines, logger } = debugLogger();
    logger.child({ token: 'ws-secret-token', responseUrl: HOOK }).info({}, 'bound');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ token: '[redacted]', responseUrl: '[redacted]' });
    expect(lines[0]).not.toContain('ws-secret-token');
  });

  it('knows GovSlack’s, percent-encoded and scheme-less ones, and a stand-in’s …/response/…', () => {
    for (const text of [
      'https://hooks.slack-gov.com/commands/T1/2/secretpart',
      'response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1%2F2%2Fsecretpart&x=1',
      'hooks.slack.com/commands/T1/2/secretpart',
      'http://127.0.0.1:3000/response/secretpart',
    ]) {
      expect(redactResponseUrls(text)).not.toContain('secretpart');
    }
  });

  it('leaves other URLs and text alone', () => {
    const text = 'calling https://slack.com/api/chat.postMessage and https://igl.example.com/aveksa/command.submit?cmd=findApprovals';
    expect(redactResponseUrls(text)).toBe(text);
    const { lines, logger } = debugLogger();
    logger.info({ service: 'https://igl.example.com/aveksa' }, 'countersign is running');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ service: 'https://igl.example.com/aveksa', msg: 'countersign is running' });
  });
});

describe('SaidOncePerMinute', () => {
  it('says the first at once, then once a minute with how many came since', () => {
    const said = new SaidOncePerMinute();
    expect(said.count(0)).toBe(1);
    expect(said.count(1_000)).toBeUndefined();
    expect(said.count(59_999)).toBeUndefined();
    expect(said.count(60_000)).toBe(3);
    expect(said.count(60_001)).toBeUndefined();
    expect(said.count(200_000)).toBe(2);
  });
});
