/**
 * The guard every test runs under (test/helpers/network-guard.ts, vitest's setupFiles): a test
 * that reaches past this machine fails, whichever client it used, even when the code under test
 * caught the failure; this machine stays reachable.
 */

import { lookup, resolve4 } from 'node:dns/promises';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { assertNothingReached, isThisMachine } from './helpers/network-guard.js';

// TEST-NET-1 (RFC 5737): documentation only, routed nowhere, so a guard that failed would reach no one either.
const AWAY = '192.0.2.1';

describe('the network guard', () => {
  it('refuses a connection to another machine by net, undici, fetch and node:http, and a DNS query for a name out there', async () => {
    const socket = connect(80, AWAY);
    const [error] = (await once(socket, 'error').catch((e: unknown) => [e])) as [Error];
    expect(error.message).toContain(`a test reached ${AWAY}:80`);
    await expect(request(`http://${AWAY}:81/`)).rejects.toThrow(`a test reached ${AWAY}:81`);
    const fetched = (await fetch(`http://${AWAY}:82/`).catch((e: unknown) => e)) as Error & { cause?: Error };
    expect(fetched.cause?.message).toContain(`a test reached ${AWAY}:82`);
    await expect(lookup('example.com')).rejects.toThrow('a test reached the DNS, for example.com');
    await expect(resolve4('example.com')).rejects.toThrow('a test reached the DNS, for example.com');
    // Caught above, as the app catches a network failure: the test that caused it still fails, naming each.
    expect(assertNothingReached).toThrow(new RegExp(`${AWAY}:80[^]*${AWAY}:81[^]*${AWAY}:82[^]*for example.com[^]*for example.com`));
    // Said once: the test after this one is not blamed for it.
    expect(assertNothingReached).not.toThrow();
  });

  it('lets this machine through: 127.0.0.1 and localhost', async () => {
    const server = createServer((_req, res) => res.end('here'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await (await request(`http://127.0.0.1:${port}/`)).body.text()).toBe('here');
      expect(await (await fetch(`http://localhost:${port}/`)).text()).toBe('here');
      expect(await lookup('localhost')).toBeDefined();
    } finally {
      server.close();
    }
    expect(assertNothingReached).not.toThrow();
  });

  it('knows this machine by its names and addresses, and nothing else', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST', 'app.localhost'])
      expect(isThisMachine(host), host).toBe(true);
    for (const host of [
      '10.0.0.1',
      '192.0.2.1',
      '0.0.0.0',
      '::',
      '::ffff:10.0.0.1',
      'fd00::2',
      'example.com',
      'localhost.example.com',
      'hooks.slack.com',
    ])
      expect(isThisMachine(host), host).toBe(false);
  });
});
