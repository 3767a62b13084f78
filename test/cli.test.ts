import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Secret } from '../src/secret.js';
import { createServiceClient } from '../src/service/index.js';
import { spawnCli } from './helpers/spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('countersign service', () => {
  it('serves the demo data, prints working demo tokens, and stops cleanly on SIGTERM', async () => {
    const cli = spawnCli(['service', '--port', '0']);
    const [, url] = await cli.waitFor(/listening on (http:\/\/\S+)/);
    const [, token] = await cli.waitFor(/^ {2}approver +ada\.lovelace +(\S+)/m);
    const client = createServiceClient({ baseUrl: url ?? '' });
    const page = await client.findApprovals({ 'page-size': 3 }, new Secret(token ?? ''));
    expect(page.count).toBe(3);
    await client.close();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).toContain('stopped');
  });

  it('keeps data in a file across restarts', async () => {
    const file = join(dir, 'reference.db');
    for (const expectFill of [true, false]) {
      const cli = spawnCli(['service', '--port', '0', '--data', file]);
      await cli.waitFor(/420 approvals, 7 collectors/);
      expect(cli.stderr().includes('Filling')).toBe(expectFill);
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    }
  });

  it('exits 2 with the usage for a wrong command or option', async () => {
    for (const args of [['nope'], ['service', '--port', 'x'], ['service', '--bogus'], ['service', '--approvals', '10']]) {
      const cli = spawnCli(args);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toMatch(/^countersign: .+\n\nUsage: countersign/);
    }
  });

  it('exits 1 when the port is taken', async () => {
    const first = spawnCli(['service', '--port', '0']);
    const [, port] = await first.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const second = spawnCli(['service', '--port', port ?? '']);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/EADDRINUSE/);
    first.child.kill('SIGTERM');
    await first.exited;
  });
});
