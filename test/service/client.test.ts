import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { AppSession } from '../../src/accounts/trusted-app.js';
import { translateFailure } from '../../src/render/errors.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import {
  AppSignInError,
  ConflictError,
  createServiceClient,
  InvalidParameterError,
  InvalidTokenError,
  LoginFailedError,
  MissingParameterError,
  NoEligibleCollectorsError,
  NotFoundError,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from '../../src/service/index.js';
import { eventually } from '../helpers/eventually.js';
import { withDeadService, withStub } from '../helpers/service-stub.js';
import { sendBody, sendHtml } from '../helpers/stub-server.js';

const TOKEN = new Secret('ws3101abc:-28aff589:18a2758240d:-7c4e0.57');
const ONE = JSON.stringify({
  findApprovals: {
    Approval: {
      WorkItemName: 'Manager Approval',
      WorkItemId: '1:WPDS:1',
      RequestName: 'r',
      WorkItemCompletedDate: '',
      WorkItemDueDate: '2026-12-01 10:00:00.0',
    },
    NumApprovals: 1,
  },
});

describe('requests', () => {
  it('says whom a trusted application acts for with auth-user-id, and refuses to send an unsafe one', async () => {
    const { stub, client } = await withStub((_req, res) => sendBody(res, 200, ONE));
    await client.findApprovals({ 'page-size': 1 }, TOKEN, { onBehalfOf: 'ada.lovelace' });
    expect(stub.requests[0]?.url).toBe('/aveksa/command.submit?cmd=findApprovals&format=json&page-size=1&auth-user-id=ada.lovelace');
    await client.getRunStatus('7', TOKEN, { onBehalfOf: 'jdoe@example' });
    expect(stub.requests[1]?.url).toBe('/aveksa/command.submit?cmd=getRunStatus&run-id=7&format=json&auth-user-id=jdoe%40example');
    await expect(client.findApprovals({}, TOKEN, { onBehalfOf: 'ada\u202e' })).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(client.collectEntitlements({ name: 'x' }, TOKEN, { onBehalfOf: '' })).rejects.toBeInstanceOf(InvalidParameterError);
    expect(stub.requests).toHaveLength(2);
  });

  it('sends a GET to {base}/command.submit with cmd, format=json, the bearer token, both JSON headers and no body', async () => {
    const { stub, client } = await withStub((_req, res) => sendBody(res, 200, ONE));
    await client.findApprovals({ state: 'completed', 'page-size': 5, 'due-after': '01-jan-2026' }, TOKEN);
    const [req] = stub.requests;
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe('/aveksa/command.submit?cmd=findApprovals&format=json&due-after=01-jan-2026&page-size=5&state=completed');
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN.reveal()}`);
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.body).toBe('');
  });

  it('keeps a value holding & and = as one value, and encodes spaces as %20', async () => {
    const { stub, client } = await withStub((_req, res) => sendBody(res, 200, '{"data":{"type":"collectEntitlements"}}'));
    await client.collectEntitlements({ name: 'x&force=true', application: 'Active Directory' }, TOKEN);
    const url = new URL(stub.requests[0]?.url ?? '', 'http://x');
    expect(url.searchParams.getAll('force')).toEqual([]);
    expect(url.searchParams.get('name')).toBe('x&force=true');
    expect(stub.requests[0]?.url).toContain('application=Active%20Directory');
  });

  it('sends force only when asked, as true or false', async () => {
    const { stub, client } = await withStub((_req, res) => sendBody(res, 200, '{"data":{"type":"collectEntitlements"}}'));
    await client.collectEntitlements({}, TOKEN);
    await client.collectEntitlements({ force: true }, TOKEN);
    await client.collectEntitlements({ force: false }, TOKEN);
    expect(stub.requests.map((r) => r.url)).toEqual([
      '/aveksa/command.submit?cmd=collectEntitlements&format=json',
      '/aveksa/command.submit?cmd=collectEntitlements&format=json&force=true',
      '/aveksa/command.submit?cmd=collectEntitlements&format=json&force=false',
    ]);
  });

  it('accepts a base URL with or without a trailing slash or /command.submit', async () => {
    const { stub } = await withStub((_req, res) => sendBody(res, 200, ONE));
    for (const base of [`${stub.url}/`, `${stub.url}/command.submit`]) {
      const c = createServiceClient({ baseUrl: base });
      await c.findApprovals({}, TOKEN);
      await c.close();
    }
    expect(stub.requests.map((r) => r.url.split('?')[0])).toEqual(['/aveksa/command.submit', '/aveksa/command.submit']);
  });

  it('refuses an invalid query without sending anything', async () => {
    const { stub, client } = await withStub((_req, res) => sendBody(res, 200, ONE));
    await expect(client.findApprovals({ 'due-after': '2026-01-31' }, TOKEN)).rejects.toBeInstanceOf(InvalidParameterError);
    await expect(client.findApprovals({ 'due-after': '31-JAN-2026' }, TOKEN)).rejects.toThrow(/due-after/);
    await expect(client.findApprovals({ 'due-after': '31-feb-2026' }, TOKEN)).rejects.toThrow(/due-after/);
    await expect(client.findApprovals({ 'page-size': 0 }, TOKEN)).rejects.toThrow(/page-size/);
    await expect(client.findApprovals({ state: 'Pending' } as never, TOKEN)).rejects.toThrow(/state/);
    await expect(client.findApprovals({ 'auth-user-id': 'x' } as never, TOKEN)).rejects.toThrow(/auth-user-id/);
    await expect(client.collectEntitlements({ name: 'a\nb' }, TOKEN)).rejects.toThrow(/name/);
    for (const c of ['\u0085', '\u009b', '\u202e', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c']) {
      await expect(client.collectEntitlements({ name: `AD${c}Accounts` }, TOKEN)).rejects.toThrow(/name: no control or bidirectional/);
      await expect(client.findApprovals({ 'entitlement-name': `x${c}` }, TOKEN)).rejects.toThrow(/entitlement-name/);
    }
    await expect(client.getRunStatus('1&cmd=x', TOKEN)).rejects.toBeInstanceOf(UnexpectedResponseError);
    expect(stub.requests).toHaveLength(0);
  });

  it('posts loginUser credentials as escaped XML in the body, never in the URL', async () => {
    const { stub, client } = await withStub((_req, res) => sendBody(res, 200, '{"data":{"type":"loginUser","token":"ws9:-1:2:-3.4"}}'));
    const token = await client.loginUser({ username: 'ada', password: new Secret('p<&>"w'), authsource: 'corp-ldap' });
    expect(token.reveal()).toBe('ws9:-1:2:-3.4');
    const [req] = stub.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/aveksa/command.submit?cmd=loginUser&format=json&authsource=corp-ldap');
    expect(req?.headers['content-type']).toBe('application/xml');
    expect(req?.headers.authorization).toBeUndefined();
    expect(req?.body).toBe('<username>ada</username><password>p&lt;&amp;&gt;&quot;w</password>');
  });

  it('signs in as a trusted application with ClientId and ClientSecret headers, POSTed without a body', async () => {
    const { stub, client } = await withStub((_req, res) =>
      sendBody(res, 200, '{"data":{"type":"loginTrustedApp","token":"ws7:-1:2:-3.4"}}'),
    );
    const token = await client.loginTrustedApp({ clientId: 'countersign', clientSecret: new Secret('s3cret-of-the-app') });
    expect(token.reveal()).toBe('ws7:-1:2:-3.4');
    const [req] = stub.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/aveksa/command.submit?cmd=loginTrustedApp&format=json');
    expect(req?.headers.clientid).toBe('countersign');
    expect(req?.headers.clientsecret).toBe('s3cret-of-the-app');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers.authorization).toBeUndefined();
    expect(req?.body).toBe('');
  });

  it('keeps connections alive: twenty consecutive calls use at most two sockets', async () => {
    const { stub, client } = await withStub((_req, res) => sendBody(res, 200, ONE));
    for (let i = 0; i < 20; i++) await client.findApprovals({}, TOKEN);
    expect(stub.requests).toHaveLength(20);
    expect(new Set(stub.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
  });
});

describe('answers', () => {
  const cases: Array<[string, string, string, number]> = [
    ['XML with zero results', '<?xml version="1.0"?><findApprovals><NumApprovals>0</NumApprovals></findApprovals>', 'application/xml', 0],
    ['an empty body', '', 'application/json', 0],
    ['an empty findApprovals element', '<findApprovals/>', 'application/xml', 0],
    [
      'XML with two approvals',
      '<findApprovals><Approval><WorkItemId>1:a:1</WorkItemId><WorkItemDueDate>2026-01-01 00:00:00.0</WorkItemDueDate></Approval><Approval><WorkItemId>2:a:1</WorkItemId></Approval><NumApprovals>2</NumApprovals></findApprovals>',
      'application/xml',
      2,
    ],
    [
      'properties with two approvals',
      'WorkItemName=A,B\nWorkItemId=1:a:1,2:b:2\nRequestName=r1,r2\nWorkItemCompletedDate=,\nWorkItemDueDate=2026-01-01 00:00:00.0,2026-01-02 00:00:00.0\nNumApprovals=2\n',
      'text/plain',
      2,
    ],
    ['properties with one approval whose name has a comma', 'WorkItemId=1:a:1\nRequestName=Smith, John\nNumApprovals=1\n', 'text/plain', 1],
    ['a JSON body with a byte-order mark', `\uFEFF${ONE}`, 'application/json', 1],
  ];
  for (const [name, body, type, count] of cases) {
    it(`reads ${name}`, async () => {
      const { client } = await withStub((_req, res) => sendBody(res, 200, body, type));
      const page = await client.findApprovals({}, TOKEN);
      expect(page.count).toBe(count);
      expect(page.approvals).toHaveLength(count);
    });
  }

  it('reads a properties collect answer', async () => {
    const { client } = await withStub((_req, res) =>
      sendBody(res, 200, 'type=collectEntitlements\nrun-id=4,5\nrun-source-4=AD Accounts\nrun-source-5=AD Groups\n', 'text/plain'),
    );
    expect(await client.collectEntitlements({}, TOKEN)).toEqual({
      runs: [
        { runId: '4', collector: 'AD Accounts' },
        { runId: '5', collector: 'AD Groups' },
      ],
    });
  });

  const bad: Array<[string, string, RegExp]> = [
    ['truncated JSON', ONE.slice(0, 40), /JSON|Unexpected|Unterminated/],
    ['a JSON body of another shape', '{"data":{"type":"findApprovals"}}', /findApprovals/],
    [
      'an HTML page with status 200',
      '<html><head><title>Error</title></head><body><p>Login required</p></body></html>',
      /HTML page with status 200: Login required/,
    ],
    ['properties that cannot be split', 'WorkItemId=1:a:1,2:b:2,3\nNumApprovals=2\n', /does not split/],
    ['truncated XML', '<findApprovals><NumApprovals>0</NumApprovals>', /never closed/],
    ['plain words', 'Service temporarily busy', /key=value/],
  ];
  for (const [name, body, detail] of bad) {
    it(`reports ${name} as an unexpected response, with a detail for the log`, async () => {
      const { client } = await withStub((_req, res) => sendBody(res, 200, body));
      const error = await client.findApprovals({}, TOKEN).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect((error as UnexpectedResponseError).detail).toMatch(detail);
      expect((error as UnexpectedResponseError).message).toBe(
        'The Command Service gave an answer that could not be understood (findApprovals).',
      );
    });
  }

  it('reports an empty collect answer as unexpected: it cannot tell whether work started', async () => {
    const { client } = await withStub((_req, res) => sendBody(res, 200, ''));
    await expect(client.collectEntitlements({}, TOKEN)).rejects.toBeInstanceOf(UnexpectedResponseError);
  });

  it('refuses a body over the size limit', async () => {
    const { client } = await withStub((_req, res) => sendBody(res, 200, `{"findApprovals":{"pad":"${'x'.repeat(5000)}"}}`), {
      maxBodyBytes: 1000,
    });
    const error = await client.findApprovals({}, TOKEN).catch((e: unknown) => e);
    expect((error as UnexpectedResponseError).detail).toMatch(/larger than 1000 bytes/);
  });
});

describe('errors', () => {
  it('401 → InvalidTokenError, telling expiry from a missing permission', async () => {
    const { client } = await withStub((_req, res, i) =>
      sendHtml(
        res,
        401,
        i === 0
          ? "The token is not valid for the command 'findApprovals'. Token is invalid or expired"
          : "The token is not valid for the command 'findApprovals'. ",
      ),
    );
    const expired = await client.findApprovals({}, TOKEN).catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(InvalidTokenError);
    expect((expired as InvalidTokenError).expired).toBe(true);
    expect((expired as InvalidTokenError).status).toBe(401);
    const denied = await client.findApprovals({}, TOKEN).catch((e: unknown) => e);
    expect((denied as InvalidTokenError).expired).toBe(false);
  });

  it('412 naming a required parameter → MissingParameterError with the parameter and the query string', async () => {
    const { client } = await withStub((req, res) => sendHtml(res, 412, 'The parameter auth-user-id is required.', req.url?.split('?')[1]));
    const error = (await client.findApprovals({}, TOKEN).catch((e: unknown) => e)) as MissingParameterError;
    expect(error).toBeInstanceOf(MissingParameterError);
    expect(error.parameter).toBe('auth-user-id');
    expect(error.serviceMessage).toBe('The parameter auth-user-id is required.');
    expect(error.queryString).toBe('cmd=findApprovals&format=json');
  });

  it('another 412 → InvalidParameterError naming the parameter', async () => {
    const { client } = await withStub((_req, res) =>
      sendHtml(res, 412, "The value 'x' of the parameter sort is invalid.", 'cmd=findApprovals'),
    );
    const error = (await client.findApprovals({}, TOKEN).catch((e: unknown) => e)) as InvalidParameterError;
    expect(error).toBeInstanceOf(InvalidParameterError);
    expect(error.parameter).toBe('sort');
  });

  it('404 from collect → NoEligibleCollectorsError with the application', async () => {
    const { client } = await withStub((_req, res) =>
      sendHtml(res, 404, 'No eligible collectors found for the application R&amp;D', 'cmd=collectEntitlements'),
    );
    const error = (await client.collectEntitlements({ application: 'R&D' }, TOKEN).catch((e: unknown) => e)) as NoEligibleCollectorsError;
    expect(error).toBeInstanceOf(NoEligibleCollectorsError);
    expect(error.application).toBe('R&D');
    expect(error.queryString).toBe('cmd=collectEntitlements');
  });

  it('reads only the first 64 KiB of a large error page, and still quotes its message', async () => {
    const { client } = await withStub((_req, res) => {
      res.writeHead(412, { 'content-type': 'text/html' });
      res.end(`<html><body><p>The value 'x' of the parameter sort is invalid.</p><p>${'<a '.repeat(700_000)}</p></body></html>`);
    });
    const error = (await client.findApprovals({}, TOKEN).catch((e: unknown) => e)) as InvalidParameterError;
    expect(error).toBeInstanceOf(InvalidParameterError);
    expect(error.parameter).toBe('sort');
    expect(error.serviceMessage).toBe("The value 'x' of the parameter sort is invalid.");
  });

  it('409 → ConflictError; other 4xx → NotFoundError; 401 on login → LoginFailedError', async () => {
    const { client } = await withStub((_req, res, i) => {
      if (i === 0) sendHtml(res, 409, 'Cannot schedule AD Accounts: already in the queue for processing');
      else if (i === 1) sendHtml(res, 404, 'The run-id 9 is invalid.');
      else sendHtml(res, 401, 'User could not be validated. The username or password may be incorrect.', 'cmd=loginUser&format=json');
    });
    await expect(client.collectEntitlements({}, TOKEN)).rejects.toBeInstanceOf(ConflictError);
    await expect(client.getRunStatus('9', TOKEN)).rejects.toBeInstanceOf(NotFoundError);
    const login = await client.loginUser({ username: 'ada', password: new Secret('Wr0ng-pa55') }).catch((e: unknown) => e);
    expect(login).toBeInstanceOf(LoginFailedError);
    expect(JSON.stringify(login)).not.toContain('Wr0ng-pa55');
    expect(String(login)).not.toContain('Wr0ng-pa55');
  });

  it('500 with a Java stack trace → ServiceUnavailableError, with the text kept for the log only', async () => {
    const { client } = await withStub((_req, res) =>
      sendBody(res, 500, 'java.lang.NullPointerException\n\tat com.aveksa.Foo.bar(Foo.java:42)', 'text/plain'),
    );
    const error = (await client.findApprovals({}, TOKEN).catch((e: unknown) => e)) as ServiceUnavailableError;
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.reason).toBe('server-error');
    expect(error.message).toBe('The Command Service failed with status 500.');
    expect(error.serviceMessage).toContain('NullPointerException');
  });

  it('a refused connection → ServiceUnavailableError(network)', async () => {
    const { client } = await withDeadService();
    const error = (await client.findApprovals({}, TOKEN).catch((e: unknown) => e)) as ServiceUnavailableError;
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.reason).toBe('network');
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('a service that never answers → ServiceUnavailableError(timeout) after the headers timeout', async () => {
    const { client } = await withStub(() => {}, { timeouts: { headersMs: 200 } });
    const error = (await client.findApprovals({}, TOKEN).catch((e: unknown) => e)) as ServiceUnavailableError;
    expect(error.reason).toBe('timeout');
  });

  it('a body that stalls → ServiceUnavailableError(timeout) after the body timeout', async () => {
    const { client } = await withStub(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"findApprovals":');
      },
      { timeouts: { bodyMs: 200 } },
    );
    const error = (await client.findApprovals({}, TOKEN).catch((e: unknown) => e)) as ServiceUnavailableError;
    expect(error.reason).toBe('timeout');
  });

  it('a refused connection never reached the service, so a collection says it did not start (network)', async () => {
    const { client } = await withDeadService();
    const error = (await client.collectEntitlements({}, TOKEN).catch((e: unknown) => e)) as ServiceUnavailableError;
    expect(error.reason).toBe('network');
  });

  it('a connection dropped after the request went out → ServiceUnavailableError(dropped): it may have started', async () => {
    const { stub, client } = await withStub((req) => req.socket.destroy());
    const error = (await client.collectEntitlements({ name: 'AD Accounts' }, TOKEN).catch((e: unknown) => e)) as ServiceUnavailableError;
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.reason).toBe('dropped');
    expect(error.message).toMatch(/dropped before it answered .*may have reached it/);
    expect(stub.requests).toHaveLength(1);
  });

  it('an answer dripped one byte at a time → ServiceUnavailableError(timeout) at the deadline, and the connection is closed', async () => {
    const closed: boolean[] = [];
    const { client } = await withStub(
      (req, res) => {
        const index = closed.push(false) - 1;
        req.socket.on('close', () => {
          closed[index] = true;
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        // Each byte comes well within the body timeout, so only the whole call's deadline can end it.
        const drip = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(drip));
      },
      { timeouts: { totalMs: 400 } },
    );
    const error = (await client.findApprovals({}, TOKEN).catch((e: unknown) => e)) as ServiceUnavailableError;
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.reason).toBe('timeout');
    expect(error.message).toBe('The Command Service did not answer within 0.4 s.');
    await eventually('the connection closed', () => closed[0], 5000);
    expect(closed).toEqual([true]);
  });

  it('frees the pool: calls cut off at the deadline leave room for the next, which is answered', async () => {
    const { stub, client } = await withStub(
      (req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        if (req.url?.includes('sort=desc')) return void res.end(ONE);
        const drip = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(drip));
      },
      { connections: 2, timeouts: { totalMs: 300 } },
    );
    const dripping = await Promise.all(Array.from({ length: 6 }, () => client.findApprovals({}, TOKEN).catch((e: unknown) => e)));
    expect(dripping.map((e) => (e as ServiceUnavailableError).reason)).toEqual(Array(6).fill('timeout'));
    expect((await client.findApprovals({ sort: 'desc' }, TOKEN)).count).toBe(1);
    expect(stub.requests.at(-1)?.url).toContain('sort=desc');
  });

  it('an aborted call → ServiceUnavailableError(aborted)', async () => {
    const { client } = await withStub(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = (await client
      .findApprovals({}, TOKEN, { signal: controller.signal })
      .catch((e: unknown) => e)) as ServiceUnavailableError;
    expect(error.reason).toBe('aborted');
  });
});

describe('retries', () => {
  it('retries findApprovals once when the connection drops, and succeeds', async () => {
    const { stub, client } = await withStub((req, res, i) => (i === 0 ? req.socket.destroy() : sendBody(res, 200, ONE)));
    const page = await client.findApprovals({}, TOKEN);
    expect(page.count).toBe(1);
    expect(stub.requests).toHaveLength(2);
  });

  it('gives up on findApprovals after one retry', async () => {
    const { stub, client } = await withStub((req) => req.socket.destroy());
    await expect(client.findApprovals({}, TOKEN)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(stub.requests).toHaveLength(2);
  });

  it('never retries collectEntitlements: it starts work', async () => {
    const { stub, client } = await withStub((req) => req.socket.destroy());
    await expect(client.collectEntitlements({}, TOKEN)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(stub.requests).toHaveLength(1);
  });

  it('does not retry a timeout or an HTTP error', async () => {
    const { stub, client } = await withStub((_req, res, i) => (i === 0 ? sendHtml(res, 503, 'busy') : undefined), {
      timeouts: { headersMs: 150 },
    });
    await expect(client.findApprovals({}, TOKEN)).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(client.findApprovals({}, TOKEN)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(stub.requests).toHaveLength(2);
  });
});

describe('secrecy', () => {
  it('puts the token in no error and no log line, whatever happens', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (l) => lines.push(l) });
    const { client } = await withStub(
      (req, res, i) => {
        if (i === 0) sendHtml(res, 401, "The token is not valid for the command 'findApprovals'. Token is invalid or expired");
        else if (i === 1) sendBody(res, 200, '{not json');
        else if (i === 2) sendBody(res, 500, 'boom');
        else req.socket.destroy();
      },
      { logger },
    );
    const errors: unknown[] = [];
    for (let i = 0; i < 4; i++) errors.push(await client.findApprovals({}, TOKEN).catch((e: unknown) => e));
    const everything = [
      ...lines,
      ...errors.map((e) => `${String(e)} ${JSON.stringify(e)} ${(e as Error).stack} ${JSON.stringify((e as Error).cause ?? null)}`),
    ].join('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(everything).not.toContain(TOKEN.reveal());
    expect(everything).not.toContain('28aff589');
  });
});

describe('trusted-application sign-in', () => {
  it('turns a refusal into AppSignInError, with the service’s words and never the secret, in errors or the log', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (l) => lines.push(l) });
    const { client } = await withStub(
      (_req, res, i) => {
        if (i === 0) sendHtml(res, 401, 'The trusted application could not be validated.', 'cmd=loginTrustedApp&format=json');
        else if (i === 1) sendHtml(res, 404, "The command 'loginTrustedApp' is not a valid command.");
        else sendBody(res, 200, '{"data":{"type":"loginTrustedApp"}}');
      },
      { logger },
    );
    const secret = new Secret('Never-Print-Me-0001');
    const errors: unknown[] = [];
    for (let i = 0; i < 3; i++)
      errors.push(await client.loginTrustedApp({ clientId: 'countersign', clientSecret: secret }).catch((e: unknown) => e));
    expect(errors[0]).toBeInstanceOf(AppSignInError);
    expect((errors[0] as AppSignInError).serviceMessage).toBe('The trusted application could not be validated.');
    expect(errors[1]).toBeInstanceOf(AppSignInError);
    expect(errors[2]).toBeInstanceOf(UnexpectedResponseError);
    const everything = [...lines, ...errors.map((e) => `${String(e)} ${JSON.stringify(e)} ${(e as Error).stack}`)].join('\n');
    expect(everything).not.toContain('Never-Print-Me-0001');
  });
});

describe('with a MockAgent dispatcher', () => {
  it('uses the injected dispatcher and no network', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://igl.example.com')
      .intercept({
        path: '/aveksa/command.submit?cmd=findApprovals&format=json&sort=desc',
        method: 'GET',
        headers: { authorization: `Bearer ${TOKEN.reveal()}` },
      })
      .reply(200, ONE, { headers: { 'content-type': 'application/json' } });
    const c = createServiceClient({ baseUrl: 'https://igl.example.com/aveksa', dispatcher: agent });
    const page = await c.findApprovals({ sort: 'desc' }, TOKEN);
    expect(page.approvals[0]?.workItemId).toBe('1:WPDS:1');
    agent.assertNoPendingInterceptors();
    await c.close();
    await agent.close();
  });

  it('rejects a base URL that is not http(s) or that carries credentials', () => {
    expect(() => createServiceClient({ baseUrl: 'ftp://x' })).toThrow(/http or https/);
    expect(() => createServiceClient({ baseUrl: 'https://u:p@x' })).toThrow(/credentials/);
    expect(() => createServiceClient({ baseUrl: 'not a url' })).toThrow(/not a URL/);
  });
});

describe('secrets echoed back', () => {
  const SECRET = 'S3CRET-client-secret-value';
  const PASSWORD = 'pa$$ <word> & more';
  const USER_TOKEN = 'ws3101echo:-28aff589:18a2758240d:-7c4e0.99';
  const secrets = [SECRET, PASSWORD, USER_TOKEN];

  it('never lets a secret sent with a request reach an error, its log line, or what the app logs of it', async () => {
    // A proxy or firewall in front of the service whose refusal quotes the request: headers, body, URL.
    let mode = 0;
    const { stub, client } = await withStub((req, res, index) => {
      const body = stub.requests[index]?.body ?? '';
      const echo = `Request blocked. Headers: ${Object.entries(req.headers)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join('; ')}; body: ${body}`;
      const authorization = String(req.headers.authorization ?? req.headers.clientsecret ?? '');
      switch (mode) {
        case 0:
          return sendBody(res, 403, echo, 'text/plain');
        case 1:
          // An HTML page with the Query String line, and the credential in the reason phrase.
          res.writeHead(412, `Blocked ${authorization}`, { 'content-type': 'text/html' });
          return res.end(
            `<html><body><p>${echo.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p><p>Query String=cmd=x&amp;t=${encodeURIComponent(authorization)}</p></body></html>`,
          );
        case 2:
          // A 200 that is not the answer: its excerpt goes to the log.
          return sendBody(res, 200, `<<${echo}`, 'text/plain');
        default:
          // An error page cut at the client's limit in the middle of the secret.
          return sendBody(res, 401, `${'x'.repeat(64 * 1024 - 10)}${authorization}`, 'text/plain');
      }
    });
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (l) => lines.push(l) });
    const logged = createServiceClient({ baseUrl: stub.url, logger });
    const errors: unknown[] = [];
    try {
      for (mode = 0; mode < 4; mode++) {
        const session = new AppSession({
          service: logged,
          credentials: { clientId: 'countersign', clientSecret: new Secret(SECRET) },
          maxAgeMs: 3_600_000,
          now: () => new Date(),
          logger,
        });
        errors.push(await session.token().catch((e: unknown) => e));
        errors.push(
          await logged.loginUser({ username: 'ada', password: new Secret(PASSWORD), authsource: 'corp-ldap' }).catch((e: unknown) => e),
        );
        errors.push(await logged.findApprovals({ 'page-size': 1 }, new Secret(USER_TOKEN)).catch((e: unknown) => e));
        errors.push(await logged.getApprovalDetails('1:A:1', new Secret(USER_TOKEN)).catch((e: unknown) => e));
      }
    } finally {
      await logged.close();
    }
    // The echo did reach the client: the errors say what the proxy said, the secrets left out.
    expect(errors.every((e) => e instanceof Error)).toBe(true);
    expect((errors[0] as AppSignInError).serviceMessage).toContain('Request blocked. Headers:');
    expect((errors[0] as AppSignInError).serviceMessage).toContain('clientid=countersign');
    for (const e of errors) logger.error({ error: e }, 'as the app logs a failure');
    const everything = [...lines, ...errors.map((e) => inspect(e, { depth: 10 }))].join('\n');
    for (const secret of secrets) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(encodeURIComponent(secret));
      expect(everything).not.toContain(secret.slice(0, 12));
    }
    // The password as the XML body carried it is gone too.
    expect(everything).not.toContain('pa$$ &lt;word&gt; &amp; more');
    expect(client).toBeDefined();
  });
});

describe('a sign-in’s answer is never quoted', () => {
  it('says only the length and shape of a malformed loginUser or loginTrustedApp answer: its token is in no error, log line or message', async () => {
    const FOUND = 'ws3101feed:-28aff589:18a2758240d:-7c4e0.99';
    const bodies = [
      `{"data":{"type":"loginUser","tokn":"${FOUND}"}}`,
      `{"data":{"token":"${FOUND}"`,
      `{"data":{"token":["${FOUND}"]}}`,
      `<data><token>${FOUND}</tokn></data>`,
      `token ${FOUND}`,
      `<html><head><title>Error</title></head><body>Signed in: ${FOUND}</body></html>`,
    ];
    let next = 0;
    const { stub } = await withStub((_req, res) => sendBody(res, 200, bodies[next % bodies.length] as string, 'text/plain'));
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (l) => lines.push(l) });
    const logged = createServiceClient({ baseUrl: stub.url, logger });
    const errors: unknown[] = [];
    try {
      for (next = 0; next < bodies.length; next++) {
        errors.push(await logged.loginUser({ username: 'ada', password: new Secret('pw') }).catch((e: unknown) => e));
        errors.push(await logged.loginTrustedApp({ clientId: 'countersign', clientSecret: new Secret('s3cret') }).catch((e: unknown) => e));
      }
    } finally {
      await logged.close();
    }
    expect(errors.every((e) => e instanceof UnexpectedResponseError)).toBe(true);
    for (const e of errors as UnexpectedResponseError[])
      expect(e.detail).toMatch(/a body of \d+ characters \((JSON|markup|text)\), not quoted/);
    const words: string[] = [];
    for (const e of errors) {
      logger.error({ error: e }, 'as the app logs a failure');
      const translated = translateFailure(e, { slash: '/approvals', command: 'findApprovals', userId: 'UADA', reference: 'ref-1' });
      logger.error(translated.log.detail, translated.log.event);
      words.push(JSON.stringify(translated.message));
    }
    const everything = [...lines, ...words, ...errors.map((e) => inspect(e, { depth: 10 }))].join('\n');
    expect(everything).not.toContain(FOUND);
    expect(everything).not.toContain(FOUND.slice(0, 12));
  });
});

describe('what a user typed stays out of the log', () => {
  it('takes the names and free text of a findApprovals filter out of the query the service quotes back; the enumerations stay', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (l) => lines.push(l) });
    const { client } = await withStub(
      (req, res) => sendHtml(res, 412, 'The value of sort is not valid.', (req.url ?? '').split('?')[1] ?? ''),
      { logger },
    );
    const error = await client
      .findApprovals({ 'user-last-name': 'Wayne-Secretive', 'entitlement-name': 'Payroll Admins', state: 'pending' }, TOKEN)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidParameterError);
    const translated = translateFailure(error, { slash: '/approvals', command: 'findApprovals', userId: 'UADA', reference: 'ref-1' });
    logger[translated.log.level](translated.log.detail, translated.log.event);
    expect((error as InvalidParameterError).queryString).toBe(
      'cmd=findApprovals&format=json&entitlement-name=[redacted]&state=pending&user-last-name=[redacted]',
    );
    const everything = [...lines, inspect(error, { depth: 10 })].join('\n');
    for (const typed of ['Wayne-Secretive', 'Payroll', 'Payroll%20Admins']) expect(everything).not.toContain(typed);
  });
});
