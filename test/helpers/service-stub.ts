/**
 * A service client against a stub server, for the client's own tests: both are closed when the
 * test ends, however it ends, so a test names only what it scripts.
 */

import { onTestFinished } from 'vitest';
import { createServiceClient, type ServiceClientOptions } from '../../src/service/index.js';
import { startStubServer } from './stub-server.js';

export async function withStub(handler: Parameters<typeof startStubServer>[0], options: Partial<ServiceClientOptions> = {}) {
  const stub = await startStubServer(handler);
  const client = createServiceClient({ baseUrl: stub.url, ...options });
  onTestFinished(async () => {
    await client.close();
    await stub.close();
  });
  return { stub, client };
}

/** A client whose service has gone: its address was listened on, then closed, so connections are refused. */
export async function withDeadService(options: Partial<ServiceClientOptions> = {}) {
  const stub = await startStubServer(() => {});
  await stub.close();
  const client = createServiceClient({ baseUrl: stub.url, ...options });
  onTestFinished(() => client.close());
  return { client };
}
