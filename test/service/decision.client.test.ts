/**
 * The decision call against stub servers: exactly the operator's call is sent, once, never again by
 * the client whatever happens to the connection; what the service answers becomes a typed error.
 */
import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { translateFailure } from '../../src/render/errors.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import { type DecisionCall, parseDecisionCall } from '../../src/service/decision-call.js';
import {
  InvalidParameterError,
  InvalidTokenError,
  NotOfferedError,
  NotVisibleError,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from '../../src/service/index.js';
import { withStub } from '../helpers/service-stub.js';
import { sendBody, sendHtml } from '../helpers/stub-server.js';

const TOKEN = new Secret('ws3101abc:-28aff589:18a2758240d:-7c4e0.57');
const VALUES = { id: '20512:WPDS:1', action: 'Rejected', comment: 'Not needed & <b>not</b> "now"' };

function call(request: string, body?: string): DecisionCall {
  const parsed = parseDecisionCall(request, body);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.value;
}
const GET = call('GET performWorkItem?workitem-id={id}&action={action}&comment={comment}');
const POST_XML = call('POST performWorkItem', '<workitem-id>{id}</workitem-id><action>{action}</action><comment>{comment}</comment>');

const ok = (_req: unknown, res: ServerResponse) => sendBody(res, 200, '{"data":{"type":"performWorkItem"}}');

describe('the decision call: what is sent', () => {
  it('sends a GET with everything in the query, percent-encoded, format=json and auth-user-id added', async () => {
    const { stub, client } = await withStub(ok);
    await client.decide(GET, VALUES, TOKEN);
    await client.decide(GET, { ...VALUES, comment: '' }, TOKEN, { onBehalfOf: 'ada.lovelace' });
    expect(stub.requests.map((r) => [r.method, r.url, r.body])).toEqual([
      [
        'GET',
        '/aveksa/command.submit?cmd=performWorkItem&workitem-id=20512%3AWPDS%3A1&action=Rejected&comment=Not%20needed%20%26%20%3Cb%3Enot%3C%2Fb%3E%20%22now%22&format=json',
        '',
      ],
      [
        'GET',
        '/aveksa/command.submit?cmd=performWorkItem&workitem-id=20512%3AWPDS%3A1&action=Rejected&comment=&format=json&auth-user-id=ada.lovelace',
        '',
      ],
    ]);
    expect(stub.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN.reveal()}`);
  });

  it('POSTs the body template with its values escaped, typed by its first character, and leaves format to an operator who set it', async () => {
    const { stub, client } = await withStub(ok);
    await client.decide(POST_XML, VALUES, TOKEN);
    await client.decide(call('POST performWorkItem?format=xml', '{"id":"{id}","action":"{action}","comment":"{comment}"}'), VALUES, TOKEN);
    const [xml, json] = stub.requests;
    expect([xml?.method, xml?.url, xml?.headers['content-type']]).toEqual([
      'POST',
      '/aveksa/command.submit?cmd=performWorkItem&format=json',
      'application/xml',
    ]);
    expect(xml?.body).toBe(
      '<workitem-id>20512:WPDS:1</workitem-id><action>Rejected</action><comment>Not needed &amp; &lt;b&gt;not&lt;/b&gt; &quot;now&quot;</comment>',
    );
    expect([json?.url, json?.headers['content-type'], JSON.parse(json?.body ?? '')]).toEqual([
      '/aveksa/command.submit?cmd=performWorkItem&format=xml',
      'application/json',
      { id: '20512:WPDS:1', action: 'Rejected', comment: VALUES.comment },
    ]);
  });

  it('sends nothing for an id not of the service’s shape, an empty action, or a comment with control or bidirectional characters', async () => {
    const { stub, client } = await withStub(ok);
    for (const values of [
      { ...VALUES, id: '20512' },
      { ...VALUES, action: '' },
      { ...VALUES, comment: 'evil\u202Etxt' },
      { ...VALUES, comment: 'bell\u0007' },
      { ...VALUES, comment: 'x'.repeat(2001) },
    ])
      await expect(client.decide(GET, values, TOKEN)).rejects.toBeInstanceOf(InvalidParameterError);
    expect(stub.requests).toEqual([]);
    // Line breaks and tabs are what a comment is made of.
    await client.decide(GET, { ...VALUES, comment: 'line one\nline\ttwo' }, TOKEN);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('the decision call: what comes back', () => {
  it('answers a 2xx with its status and any failure its body states, never as a decision made (the caller reads the approval again)', async () => {
    const bodies: Array<[number, string, string]> = [
      [200, '', 'application/json'],
      [204, '', 'application/json'],
      [202, '<ok/>', 'text/xml'],
      [200, '{}', 'application/json'],
      [200, '{"data":{"type":"performWorkItem","workitem-id":"1:A:1","action":"Accepted"}}', 'application/json'],
      [200, '{"status":"error","message":"Work item is locked by <b>another</b> session"}', 'application/json'],
      [200, '{"data":{"success":false,"error":{"message":"no such item"}}}', 'application/json'],
      [200, '{"result":"FAILED"}', 'application/json'],
      [200, '<response><status>error</status><message>Not allowed</message></response>', 'text/xml'],
      [200, '{"status":"ok","error":null}', 'application/json'],
    ];
    let n = 0;
    const { client } = await withStub((_req, res) => {
      const [status, body, type] = bodies[n++] as [number, string, string];
      sendBody(res, status, body, type);
    });
    const answers = [];
    for (let i = 0; i < bodies.length; i++) answers.push(await client.decide(GET, VALUES, TOKEN));
    expect(answers).toEqual([
      { status: 200, saysError: undefined },
      { status: 204, saysError: undefined },
      { status: 202, saysError: undefined },
      { status: 200, saysError: undefined },
      { status: 200, saysError: undefined },
      { status: 200, saysError: 'Work item is locked by <b>another</b> session' },
      { status: 200, saysError: 'no such item' },
      { status: 200, saysError: 'status FAILED' },
      { status: 200, saysError: 'Not allowed' },
      { status: 200, saysError: undefined },
    ]);
  });

  it('answers a 408 as a timeout and a 429 as busy: the one may have acted, the other turned the call away unread', async () => {
    let n = 0;
    const { client } = await withStub((_req, res) => {
      if (n++ === 0) sendBody(res, 408, '<html><head><title>Error</title></head><body>Request Timeout</body></html>', 'text/html');
      else sendBody(res, 429, '<html><head><title>Error</title></head><body>Too many requests</body></html>', 'text/html');
    });
    const timeout = await client.decide(GET, VALUES, TOKEN).catch((e: unknown) => e);
    expect(timeout).toMatchObject({ kind: 'service-unavailable', reason: 'timeout', status: 408 });
    const busy = await client.decide(GET, VALUES, TOKEN).catch((e: unknown) => e);
    expect(busy).toMatchObject({ kind: 'service-unavailable', reason: 'busy', status: 429 });
  });

  it('does not take a 2xx HTML page (a sign-on gateway or proxy answering instead) as done: its outcome is unknown, the page not taken for the service', async () => {
    const { stub, client } = await withStub((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<!DOCTYPE html><html><head><title>Sign in</title></head><body><p>Your session has expired. Sign in to continue.</p></body></html>',
      );
    });
    const error = await client.decide(GET, VALUES, TOKEN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as UnexpectedResponseError).detail).toContain('status 200 with an HTML page, not the service');
    expect(stub.requests).toHaveLength(1);
  });

  it('never sends it twice: a connection dropped after the request went out is a failure the caller must look into', async () => {
    const { stub, client } = await withStub((req) => req.socket.destroy());
    const error = await client.decide(GET, VALUES, TOKEN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).reason).toBe('dropped');
    expect(stub.requests).toHaveLength(1);
  });

  it('times out at its deadline once, without a second try', async () => {
    const { stub, client } = await withStub(() => {}, { timeouts: { totalMs: 300 } });
    const error = await client.decide(GET, VALUES, TOKEN).catch((e: unknown) => e);
    expect((error as ServiceUnavailableError).reason).toBe('timeout');
    expect(stub.requests).toHaveLength(1);
  });

  it('reads 412 "could not be retrieved" as not visible, another 412 as a refused parameter, and a 401 for the command alone as such', async () => {
    const pages = [
      [412, 'The work item could not be retrieved'],
      [412, "The action 'Accepted' is not valid for the work item."],
      [401, "The token is not valid for the command 'performWorkItem'. "],
    ] as const;
    let n = 0;
    const { client } = await withStub((_req, res) => {
      const [status, message] = pages[n++] as (typeof pages)[number];
      sendHtml(res, status, message, 'cmd=performWorkItem');
    });
    await expect(client.decide(GET, VALUES, TOKEN)).rejects.toBeInstanceOf(NotVisibleError);
    await expect(client.decide(GET, VALUES, TOKEN)).rejects.toBeInstanceOf(InvalidParameterError);
    const refused = await client.decide(GET, VALUES, TOKEN).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidTokenError);
    expect((refused as InvalidTokenError).commandOnly).toBe(true);
  });

  it('says "not offered" for a 404 named after the command, and stops offering decisions without asking again for an hour', async () => {
    let now = 1_000;
    const { stub, client } = await withStub(
      (_req, res) => {
        res.writeHead(404, 'performWorkItem', { 'content-type': 'text/html' });
        res.end('<html><head><title>Error</title></head><body>performWorkItem</body></html>');
      },
      { now: () => now },
    );
    expect(client.offers('decision')).toBe(true);
    const error = await client.decide(GET, VALUES, TOKEN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotOfferedError);
    expect((error as NotOfferedError).command).toBe('performWorkItem');
    expect(client.offers('decision')).toBe(false);
    expect(client.offers('getApprovalDetails')).toBe(true);
    await expect(client.decide(GET, VALUES, TOKEN)).rejects.toMatchObject({ remembered: true, command: 'performWorkItem' });
    expect(stub.requests).toHaveLength(1);
    now += 3_600_000;
    expect(client.offers('decision')).toBe(true);
  });
});

describe('the decision call: the comment stays out of the log', () => {
  it('takes the comment out of a query string or message the service quotes back, in the error and in every log line', async () => {
    const COMMENT = 'Private: Bruce is leaving on Friday';
    const values = { ...VALUES, comment: COMMENT };
    let n = 0;
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (l) => lines.push(l) });
    const { client } = await withStub(
      (req, res) => {
        // The service's error pages end with the query as it received it (here, the comment percent-encoded in it).
        const query = (req.url ?? '').split('?')[1] ?? '';
        const pages = [
          () => sendHtml(res, 401, 'The token is not valid for the command &#39;performWorkItem&#39;. Token is invalid or expired', query),
          () => sendHtml(res, 412, `The comment &#39;${COMMENT}&#39; is not valid.`, query),
          () => sendHtml(res, 500, 'java.lang.IllegalStateException', query.replace(/%20/g, '+')),
          () => sendBody(res, 404, `no such item; query was ${query}`, 'text/plain'),
        ];
        (pages[n++ % pages.length] as () => void)();
      },
      { logger },
    );
    const errors: unknown[] = [];
    for (let i = 0; i < 4; i++) errors.push(await client.decide(GET, values, TOKEN).catch((e: unknown) => e));
    for (const e of errors) {
      const translated = translateFailure(e, { slash: '/approvals', command: 'findApprovals', userId: 'UADA', reference: 'ref-1' });
      logger[translated.log.level](translated.log.detail, translated.log.event);
      logger.error({ error: e }, 'as the app logs a failure');
    }
    // The query was quoted back, the comment taken out of it.
    expect((errors[0] as InvalidTokenError).queryString).toMatch(
      /^cmd=performWorkItem&workitem-id=20512%3AWPDS%3A1&action=Rejected&comment=\[redacted\]&format=json$/,
    );
    const everything = [...lines, ...errors.map((e) => inspect(e, { depth: 10 }))].join('\n');
    for (const form of [COMMENT, encodeURIComponent(COMMENT), COMMENT.replace(/ /g, '+'), 'Bruce is leaving'])
      expect(everything).not.toContain(form);
  });
});
