/**
 * Every test file runs with this first (vitest's setupFiles): a test reaches this machine only
 * (loopback, or an address of one of its own interfaces). A connection to any other address, by
 * whatever client (node:http, undici and fetch, pg, ws: all connect through net.Socket), fails at
 * once as a refused connection would, and so does a DNS query for a name that is not this
 * machine's. Since the code under test may well catch that failure and carry on (it is built to),
 * the test that caused it fails too, after it ends, naming the address. Processes a test spawns
 * are not covered: they are the app, pointed at stand-ins.
 */

import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, afterEach } from 'vitest';

/** Kept on globalThis: one record per process, however often this module is evaluated. */
const KEY = Symbol.for('countersign.test.networkGuard');
type Guard = { reached: string[] };
const global = globalThis as typeof globalThis & { [KEY]?: Guard };

/** This machine's own addresses: a test may call itself on them (as another host would, to be refused as one). */
const OWN = new Set(
  Object.values(networkInterfaces())
    .flat()
    .map((i) => i?.address.toLowerCase()),
);

export function isThisMachine(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (OWN.has(h) || OWN.has(h.replace(/^::ffff:/, ''))) return true;
  // The unspecified address, as a destination, is this machine.
  if (h === '0.0.0.0' || h === '::') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || h === '0:0:0:0:0:0:0:1' || /^::ffff:127\.\d+\.\d+\.\d+$/.test(h);
  return false;
}

/** Where a Socket#connect call goes: undefined for a local socket path (IPC), which never leaves the machine. */
function targetOf(args: unknown[]): { host: string; port: unknown } | undefined {
  // net.connect() hands connect() its arguments already normalized: [[options, callback]].
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: string; port?: unknown; path?: string };
    if (options.path !== undefined) return undefined;
    return { host: options.host ?? 'localhost', port: options.port };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return undefined;
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first };
}

function refused(what: string): Error {
  const message = `a test reached ${what}: tests may reach this machine only (127.0.0.1, ::1, localhost, its own interfaces)`;
  (global[KEY] as Guard).reached.push(message);
  return Object.assign(new Error(message), { code: 'ENETUNREACH' });
}

function install(): void {
  if (global[KEY] !== undefined) return;
  global[KEY] = { reached: [] };

  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const target = targetOf(args);
    if (target === undefined || isThisMachine(target.host)) return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
    const error = refused(`${target.host}:${String(target.port)}`);
    // As a refused connection fails: after the caller has had the socket and listened for its error.
    process.nextTick(() => this.destroy(error));
    return this;
  } as typeof connect;

  type Callback = (error: Error | null, ...rest: unknown[]) => void;
  const lookup = dns.lookup;
  dns.lookup = function guardedLookup(hostname: string, ...rest: unknown[]) {
    // An address is not looked up anywhere (listen('0.0.0.0') asks for it too); a connection to it is checked above.
    if (net.isIP(hostname) !== 0 || isThisMachine(hostname)) return (lookup as (...a: unknown[]) => void)(hostname, ...rest);
    const callback = rest.at(-1) as Callback;
    const error = refused(`the DNS, for ${hostname}`);
    process.nextTick(() => callback(error));
  } as typeof dns.lookup;
  const lookupPromise = dns.promises.lookup;
  dns.promises.lookup = (async (hostname: string, ...rest: unknown[]) => {
    if (net.isIP(hostname) !== 0 || isThisMachine(hostname))
      return (lookupPromise as (...a: unknown[]) => Promise<unknown>)(hostname, ...rest);
    throw refused(`the DNS, for ${hostname}`);
  }) as typeof dns.promises.lookup;
  // Queries of DNS servers themselves (resolve, resolve4, resolveMx…) always leave the machine.
  for (const api of [dns, dns.promises] as unknown as Array<Record<string, unknown>>) {
    for (const name of Object.keys(api).filter((k) => k.startsWith('resolve') || k === 'reverse')) {
      if (typeof api[name] !== 'function') continue;
      api[name] = (hostname: string, ...rest: unknown[]) => {
        const error = refused(`the DNS, for ${hostname}`);
        if (api === (dns.promises as unknown)) return Promise.reject(error);
        const callback = rest.at(-1) as Callback;
        process.nextTick(() => callback(error));
      };
    }
  }
  // `import { lookup } from 'node:dns'` sees the guarded functions too.
  syncBuiltinESMExports();
}

/** Throws with every address reached since the last call, and forgets them. */
export function assertNothingReached(): void {
  const reached = (global[KEY] as Guard).reached.splice(0);
  if (reached.length > 0) throw new Error(reached.join('\n'));
}

install();
afterEach(assertNothingReached);
afterAll(assertNothingReached);
