/**
 * POST /slack/events as the receiver guards it, through the real app: the body limit (declared and
 * streamed), the signature's window (stale and ahead), replays, Slack's unsigned certificate check,
 * and signed bodies that are malformed, each answered at once while the app keeps serving.
 */

import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_WINDOW_S } from '../../src/slack/transport/receiver.js';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, SIGNING_SECRET, sign, startHarness, TEAM } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';
import { plausibleHeaders, streamPost } from '../helpers/stream-post.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ startScheduler: false, env: { COMMANDS_PER_MINUTE: '0' } });
  await h.link('UADA', 'approver');
});
afterAll(() => h.close());

const FORM = 'application/x-www-form-urlencoded';
const now = () => Math.floor(Date.now() / 1000);

/** A signed slash command with a fresh response_url; its form, to send again as it is. */
function signedCommand(text: string, timestamp = now()): { form: string; headers: Record<string, string>; responseId: string } {
  const response = h.slack.responseUrl();
  const form = new URLSearchParams({
    team_id: TEAM,
    channel_id: 'C0OPS',
    user_id: 'UADA',
    command: '/approvals',
    text,
    response_url: response.url,
    trigger_id: `t.${Math.random()}`,
  }).toString();
  return { form, headers: { 'content-type': FORM, ...sign(form, SIGNING_SECRET, timestamp) }, responseId: response.id };
}

async function stillServing(): Promise<void> {
  const sent = await h.command('UADA', '/approvals', 'page-size:1');
  expect(sent.status).toBe(200);
  expect(textOf((await h.slack.waitForResponses(sent.responseId, 1))[0])).toContain('Pending approvals');
}

describe('the body limit (1 MiB)', () => {
  it('refuses a body declared larger with 413 before a byte of it is sent', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpRequest(`${h.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': FORM, 'content-length': String(400 * 1024 * 1024), ...plausibleHeaders() },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode);
        req.destroy();
      });
      req.on('error', reject);
      // Only the headers go out: the answer cannot depend on reading the body.
      req.flushHeaders();
    });
    expect(status).toBe(413);
    await stillServing();
  });

  it('refuses a chunked body past the limit with 413, cut off as it streams, signed or not', async () => {
    const signedLooking = await streamPost(`${h.url}/slack/events`, {
      bytes: 50 * 1024 * 1024,
      chunked: true,
      headers: plausibleHeaders(),
    });
    expect(signedLooking.status).toBe(413);
    const declared = await streamPost(`${h.url}/slack/events`, { bytes: 50 * 1024 * 1024 });
    expect(declared.status).toBe(413);
    // Unsigned and chunked: refused for the missing signature, before its body is read.
    const unsigned = await streamPost(`${h.url}/slack/events`, { bytes: 50 * 1024 * 1024, chunked: true });
    expect(unsigned.status).toBe(401);
    await stillServing();
  });

  it('takes a signed request just under the limit', async () => {
    const { form, headers, responseId } = signedCommand(`help ${'x'.repeat(1000 * 1000)}`);
    expect(Buffer.byteLength(form)).toBeLessThan(1024 * 1024);
    expect((await h.post(form, headers)).status).toBe(200);
    expect(await h.slack.waitForResponses(responseId, 1)).toHaveLength(1);
  });
});

describe('signatures: window and replays', () => {
  it('runs a signed request once: the same request sent again is refused with 401 and reaches nothing', async () => {
    const before = h.service.calls.get('findApprovals') ?? 0;
    const { form, headers, responseId } = signedCommand('page-size:1');
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.post(form, headers)).status);
    expect(statuses).toEqual([200, 401, 401]);
    await h.slack.waitForResponses(responseId, 1);
    await settled(h);
    expect(h.slack.responses(responseId)).toHaveLength(1);
    expect(h.service.calls.get('findApprovals') ?? 0).toBe(before + 1);
  });

  it('refuses a timestamp ten years or two minutes ahead, and takes one 30 s ahead', async () => {
    const tenYears = signedCommand('help', now() + 10 * 365 * 86_400);
    const twoMinutes = signedCommand('help', now() + 120);
    const thirtySeconds = signedCommand('help', now() + 30);
    expect((await h.post(tenYears.form, tenYears.headers)).status).toBe(401);
    expect((await h.post(twoMinutes.form, twoMinutes.headers)).status).toBe(401);
    expect((await h.post(thirtySeconds.form, thirtySeconds.headers)).status).toBe(200);
    expect(textOf((await h.slack.waitForResponses(thirtySeconds.responseId, 1))[0])).toContain('/approvals');
    await settled(h);
    expect(h.slack.responses(tenYears.responseId)).toEqual([]);
    expect(h.slack.responses(twoMinutes.responseId)).toEqual([]);
  });

  it('refuses a timestamp that is not a number, and a signature of another version', async () => {
    const { form, headers } = signedCommand('help');
    expect((await h.post(form, { ...headers, 'x-slack-request-timestamp': 'soon' })).status).toBe(401);
    expect(
      (await h.post(form, { ...headers, 'x-slack-signature': String(headers['x-slack-signature']).replace('v0=', 'v1=') })).status,
    ).toBe(401);
  });

  it("answers Slack's unsigned certificate check with an empty 200, and nothing else unsigned", async () => {
    expect(await h.post('ssl_check=1&token=legacy', { 'content-type': FORM })).toEqual({ status: 200, body: '' });
    expect((await h.post('ssl_check=1&command=/approvals', { 'content-type': 'application/json' })).status).toBe(401);
    expect((await h.post('ssl_check=0&command=/approvals', { 'content-type': FORM })).status).toBe(401);
  });

  it("answers the Events API's url_verification with its challenge", async () => {
    const body = JSON.stringify({ type: 'url_verification', token: 'x', challenge: 'c-123' });
    const res = await h.post(body, { 'content-type': 'application/json', ...sign(body, SIGNING_SECRET, now()) });
    expect(res).toEqual({ status: 200, body: '{"challenge":"c-123"}' });
  });
});

describe('malformed signed bodies', () => {
  const form = (payload: string) => `payload=${encodeURIComponent(payload)}`;
  const cases: Array<[string, string, string]> = [
    ['payload=null', 'payload=null', FORM],
    ['payload of a list', form('[1,2]'), FORM],
    ['payload of a string', form('"block_actions"'), FORM],
    ['payload that is not JSON', 'payload=%7Bnope', FORM],
    ['payload without a type', form('{"user":{"id":"UADA"}}'), FORM],
    ['actions that are not a list', form('{"type":"block_actions","actions":"next","user":{"id":"UADA"}}'), FORM],
    ['a user that is not an object', form('{"type":"block_actions","actions":[],"user":null}'), FORM],
    ['a view that is not an object', form('{"type":"view_submission","view":null,"user":{"id":"UADA"}}'), FORM],
    ['a form that is neither a command nor a payload', 'text=hello&user_id=UADA', FORM],
    ['a command that is not a slash command', 'command=approvals&user_id=UADA', FORM],
    ['JSON null', 'null', 'application/json'],
    ['JSON that is not JSON', '{"type":', 'application/json'],
    ['an event that is null', '{"type":"event_callback","event":null}', 'application/json'],
    ['an event that is a string', '{"type":"event_callback","event":"app_home_opened"}', 'application/json'],
    ['an event whose item is not an object', '{"type":"event_callback","event":{"type":"reaction_added","item":"x"}}', 'application/json'],
  ];

  it.each(cases)('answers %s with 400', async (_what, body, contentType) => {
    const res = await h.post(body, { 'content-type': contentType, ...sign(body, SIGNING_SECRET, now()) });
    expect(res.status).toBe(400);
  });

  it('keeps serving after all of them', async () => {
    await stillServing();
  });
});

describe('other paths and methods', () => {
  it('answers 404 to anything but POST /slack/events and the probes', async () => {
    for (const [method, path] of [
      ['GET', '/slack/events'],
      ['POST', '/healthz'],
      ['POST', '/slack/other'],
      ['GET', '/'],
    ] as const) {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = httpRequest(`${h.url}${path}`, { method }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status, `${method} ${path}`).toBe(404);
    }
  });
});

describe('a replay at the very end of the window', () => {
  // Each reading of this clock is a millisecond later than the last, as when a body takes a moment
  // to arrive: the window's check and the replay check must judge the request at one instant, or a
  // replay that passes the first by a hair finds the remembered copy already forgotten.
  let at = Date.UTC(2031, 0, 15, 9, 0, 0);
  let e: Harness;
  beforeAll(async () => {
    e = await startHarness({ startScheduler: false, env: { COMMANDS_PER_MINUTE: '0' }, now: () => new Date(at++) });
  });
  afterAll(() => e.close());

  it('is refused, though the clock moves on while it is read', async () => {
    const timestamp = Math.floor(at / 1000);
    const form = new URLSearchParams({ team_id: TEAM, user_id: 'UADA', command: '/approvals', text: 'help' }).toString();
    const headers = { 'content-type': FORM, ...sign(form, SIGNING_SECRET, timestamp) };
    expect((await e.post(form, headers)).status).toBe(200);
    await settled(e);
    // The copy arrives when the window is at its last millisecond for this timestamp.
    at = (timestamp + SIGNATURE_WINDOW_S) * 1000;
    // Refused as the replay it is, not as stale: the window still takes it at this instant.
    expect(await e.post(form, headers)).toEqual({ status: 401, body: '{"ok":false,"error":"replayed"}' });
  });
});
