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
import { networkInterfaces } from 'node:os';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { assertNothingReached, isThisMachine } from './helpers/network-guard.js';

// TEST-NET-3 (RFC 5737): documentation only, so a guard that failed would reach no one either.
const AWAY = '203.0.113.1';

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

  it('knows this machine by its names and addresses, its own interfaces too, and nothing else', () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .map((i) => i?.address ?? '127.0.0.1');
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
      '0.0.0.0',
      '::',
      'localhost',
      'LOCALHOST',
      'app.localhost',
      ...own,
    ])
      expect(isThisMachine(host), host).toBe(true);
    for (const host of [
      '198.51.100.7',
      '203.0.113.9',
      '::ffff:203.0.113.9',
      '2001:db8::1',
      'example.com',
      'localhost.example.com',
      'hooks.slack.com',
    ])
      expect(isThisMachine(host), host).toBe(false);
  });
});
