/**
 * A decision whose process stops while it is under way. Stopped gracefully (SIGTERM's path), the
 * stop waits for it, within SHUTDOWN_TIMEOUT: its call ends at its deadline, and the trail says the
 * outcome is unknown rather than stopping at "sent", and the approver is never told Done without a
 * record of it. Killed (SIGKILL) after the service acted, a second process on the same store
 * reconciles it once its hold is over: the trail gets what the service shows, marked as found
 * afterwards, and `countersign audit` shows it unsettled until then.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { deciding, until } from '../helpers/deciding.js';
import { type Harness, SIGNING_SECRET, startHarness } from '../helpers/harness.js';
import { childEnv, ROOT } from '../helpers/spawn.js';

const DECISION_REQUEST = 'GET performWorkItem?workitem-id={id}&action={action}&comment={comment}';
const KEY = Buffer.alloc(32, 9).toString('base64');

describe('stopped with a decision under way', () => {
  let h: Harness;
  const flow = deciding(() => h);
  beforeAll(async () => {
    h = await startHarness({
      // A stop of 4 s: a decision's call and its reading after end within 2 s of its sending.
      env: { DECISION_REQUEST, COMMANDS_PER_MINUTE: '0', SHUTDOWN_TIMEOUT: '4s' },
      startScheduler: false,
    });
    await h.link('UADA', 'approver');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('says at start that the stop leaves a decision less than a call', () => {
    expect(h.logs.join('\n')).toContain('SHUTDOWN_TIMEOUT leaves a decision 2000 ms from its call to its answer');
  });

  it('waits for it: its call ends at its deadline, the trail says unknown, the approver is told so, never Done', async () => {
    const { id, actions } = flow.decidable();
    const action = actions[0] as string;
    const details = await flow.openDetails('UADA', id);
    const confirm = await flow.choose('UADA', details, action);
    // The service acts, then takes 10 s to say so: past the stop's limit.
    h.service.setQuirks({ lateAnswers: { performWorkItem: 10_000 } });
    const { outcome } = await flow.submit('UADA', confirm, 'before the stop');
    await until('the decision taken by the service', () => flow.decisionRow(id));
    await h.app.shutdown();
    // Within its limit: nothing given up.
    expect(h.app.abandoned).toBe(0);
    const said = (await outcome()).text;
    expect(said).not.toContain('Done');
    expect(said).toContain('countersign could not confirm your decision: the call to the Command Service was cut short');
    // The store closed with the stop: read the trail through the app started again.
    await h.restart();
    const [trail] = await h.app.deps.store.listDecisions({ limit: 1 });
    expect(trail).toMatchObject({
      approvalId: id,
      outcome: 'unknown',
      unsettled: true,
      answer: { result: 'unknown', error: 'service-unavailable' },
    });
    expect(h.logs.join('\n')).not.toContain('could not record');
    h.service.setQuirks({});
  });
});

describe('killed after the service acted', () => {
  let h: Harness;
  let dir: string;
  let killed: ChildProcess | undefined;
  let offset = 0;
  const flow = deciding(() => h);
  const database = () => `sqlite:${join(dir, 'shared.db')}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'countersign-killed-'));
    h = await startHarness({
      env: { DECISION_REQUEST, COMMANDS_PER_MINUTE: '0', DATABASE_URL: database() },
      // This instance's clock, which the test moves past the other's hold; the other runs on the machine's.
      now: () => new Date(Date.now() + offset),
      startScheduler: false,
    });
    await h.link('UADA', 'approver');
  });
  afterAll(async () => {
    killed?.kill('SIGKILL');
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reconciles the decision it left sent: unsettled in the audit until then, then what the service shows, found afterwards', async () => {
    // The other instance, its own process, on the same store, service and Slack.
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/instance-main.ts'], {
      cwd: ROOT,
      env: childEnv({
        SLACK_BOT_TOKEN: 'xoxb-0000-1111-e2etestbot',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: h.slack.apiUrl,
        COMMAND_SERVICE_URL: h.service.url,
        TOKEN_ENCRYPTION_KEY: KEY,
        DATABASE_URL: database(),
        DECISION_REQUEST,
        COMMANDS_PER_MINUTE: '0',
        PORT: '0',
        LOG_LEVEL: 'error',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    killed = child;
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const port = await until('the other instance listening', () => /\{"port":(\d+)\}/.exec(out)?.[1], 30_000);

    const { id, actions } = flow.decidable();
    const action = actions[0] as string;
    const details = await flow.openDetails('UADA', id);
    const confirm = await flow.choose('UADA', details, action);
    h.service.setQuirks({ lateAnswers: { performWorkItem: 15_000 } });
    await flow.submit('UADA', confirm, 'on the other', undefined, `http://127.0.0.1:${port}`);
    await until('the decision taken by the service', () => flow.decisionRow(id));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    h.service.setQuirks({});

    const env = { DATABASE_URL: database(), TOKEN_ENCRYPTION_KEY: KEY };
    const audit = async () => {
      const run = cli(['audit', '--kind', 'decisions'], env, '', { now: h.app.deps.now, timeZone: 'UTC' });
      expect(await run.exited).toBe(0);
      return run.stdout();
    };
    const [left] = await h.app.deps.store.listDecisions({ limit: 1 });
    expect(left).toMatchObject({ approvalId: id, outcome: 'sent', unsettled: true });
    expect(left?.steps.map((s) => s.step)).toEqual(['asked', 'confirmed', 'sent']);
    expect(await audit()).toContain('UNSETTLED');

    // Not before its hold is over: the call could still land.
    expect(await h.app.decisionReconciler.tick()).toBe(0);
    offset = 3 * 20_000 + 30_000;
    expect(await h.app.decisionReconciler.tick()).toBe(1);
    const [found] = await h.app.deps.store.listDecisions({ limit: 1 });
    expect(found).toMatchObject({
      approvalId: id,
      outcome: 'sent',
      unsettled: false,
      found: { found: 'completed', by: 'reconciler', seen: { pending: false, state: action } },
    });
    expect(found?.steps.map((s) => s.step)).toEqual(['asked', 'confirmed', 'sent', 'reconciled']);
    const after = await audit();
    expect(after).not.toContain('UNSETTLED');
    expect(after).toContain(`the service shows it ${action}`);
    expect((await h.app.deps.store.decisionHolds([id])).get(id)).toBeUndefined();
    // A process of its own to start: on a loaded machine that alone takes seconds.
  }, 90_000);
});
