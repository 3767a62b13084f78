/**
 * What operators see: a request id on every log line of a request (the work after the ack
 * included), the service's latency, Prometheus metrics at /metrics, and the per-user rate limit.
 */

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { COMMANDS_PER_MINUTE: '5' }, startScheduler: false });
  await h.link('UADA', 'approver');
  await h.link('UOPS', 'ops');
});
afterAll(() => h.close());

type Line = Record<string, unknown> & { msg: string };
const lines = (): Line[] => h.logs.map((l) => JSON.parse(l) as Line);

async function metrics(): Promise<string> {
  const res = await request(`${h.url}/metrics`);
  expect(res.statusCode).toBe(200);
  expect(String(res.headers['content-type'])).toContain('text/plain');
  return res.body.text();
}

/** /metrics once every pattern matches (a request is counted when its work ends, just after its answer). */
async function metricsMatching(...patterns: RegExp[]): Promise<string> {
  let text = '';
  await eventually(
    () => `/metrics matching ${patterns.filter((p) => !p.test(text)).join(', ')}`,
    async () => {
      text = await metrics();
      return patterns.every((p) => p.test(text));
    },
    5000,
  );
  return text;
}

describe('logs', () => {
  it('carry one request id, the user and the command on every line of a request, after the ack too', async () => {
    const before = h.logs.length;
    const sent = await h.command('UADA', '/approvals', 'page-size:2');
    await h.slack.waitForResponses(sent.responseId, 1);
    const mine = lines()
      .slice(before)
      .filter((l) => l.slash === '/approvals' && l.user === 'UADA');
    const call = mine.find((l) => l.msg === 'service call');
    // Answered calls are at debug (the histogram counts them); see below for one that failed.
    expect(call).toMatchObject({ level: 'debug', command: 'findApprovals', status: 200, user: 'UADA', component: 'service' });
    expect(typeof call?.ms).toBe('number');
    expect(typeof call?.request).toBe('string');
    // The line's own field (the service command) wins over the request's where both name one.
    const ids = new Set(mine.map((l) => l.request));
    expect(ids.size).toBe(1);
    const other = await h.command('UADA', '/approvals', 'page-size:1');
    await h.slack.waitForResponses(other.responseId, 1);
    const next = lines()
      .slice(before)
      .filter((l) => l.msg === 'service call' && l.request !== call?.request);
    expect(next).toHaveLength(1);
  });

  it('never hold a token, a password or a signing secret', async () => {
    const all = h.logs.join('\n');
    for (const secret of [h.demoToken('approver'), h.demoToken('ops'), '0123456789abcdef0123456789abcdef'])
      expect(all).not.toContain(secret);
  });
});

describe('metrics', () => {
  it('count requests by name and outcome once their work has ended, and time service calls', async () => {
    const bad = await h.command('UOPS', '/approvals', 'sort:sideways');
    await h.slack.waitForResponses(bad.responseId, 1);
    const refused = await h.command('UOPS', '/approvals', '');
    await h.slack.waitForResponses(refused.responseId, 1);
    const expected = [
      /countersign_requests_total\{type="command",name="\/approvals",outcome="ok"\} [2-9]/,
      /countersign_requests_total\{type="command",name="\/approvals",outcome="invalid"\} 1/,
      /countersign_requests_total\{type="command",name="\/approvals",outcome="invalid_token"\} 1/,
    ];
    const text = await metricsMatching(...expected);
    expect(text).toMatch(/countersign_requests_total\{type="command",name="\/approvals",outcome="ok"\} [2-9]/);
    expect(text).toMatch(/countersign_requests_total\{type="command",name="\/approvals",outcome="invalid"\} 1/);
    expect(text).toMatch(/countersign_requests_total\{type="command",name="\/approvals",outcome="invalid_token"\} 1/);
    expect(text).toMatch(/countersign_service_call_seconds_count\{command="findApprovals",status="200"\} [2-9]/);
    expect(text).toMatch(/countersign_service_call_seconds_count\{command="findApprovals",status="401"\} 1/);
    expect(text).toContain('countersign_process_resident_memory_bytes');
    // A call the service refused is still logged at info, with its status.
    expect(lines().find((l) => l.msg === 'service call' && l.status === 401 && l.user === 'UOPS')).toMatchObject({
      level: 'info',
      command: 'findApprovals',
    });
  });

  it('count response_url failures as Slack API errors', async () => {
    const sent = await h.command('UADA', '/approvals', 'page-size:1', { responseUrl: { id: 'gone', url: `${h.slack.url}/nowhere/404` } });
    expect(sent.status).toBe(200);
    const text = await metricsMatching(/countersign_requests_total\{type="command",name="\/approvals",outcome="response_url_failed"\} 1/);
    expect(text).toMatch(/countersign_requests_total\{type="command",name="\/approvals",outcome="response_url_failed"\} 1/);
    // Once: telling the user of the failure through the same spent URL would not reach them either.
    expect(text).toMatch(/countersign_slack_api_errors_total\{method="response_url",error="404"\} 1/);
  });

  it('keep the same label sets whoever asks and whatever for: no user id and no approval id in a label', async () => {
    // A label per user or per approval would be a new series each time, kept for the life of the process.
    const ok = /countersign_requests_total\{type="command",name="\/approvals",outcome="ok"\} (\d+)/;
    const answered = async () => Number(ok.exec(await metrics())?.[1] ?? 0);
    /** The app's own series (Node's default metrics aside), without their values. */
    const seriesOf = (text: string) =>
      new Set(
        text
          .split('\n')
          .filter((l) => l.startsWith('countersign_') && !/^countersign_(nodejs|process)_/.test(l))
          .map((l) => l.slice(0, l.lastIndexOf(' '))),
      );
    const askAs = async (users: string[], firstApproval: number) => {
      const before = await answered();
      for (const [i, user] of users.entries()) {
        await h.link(user, 'approver');
        const sent = await h.command(user, '/approvals', `all approval-id:${firstApproval + i}:WPDS:1 user-id:${user.toLowerCase()}`);
        await h.slack.waitForResponses(sent.responseId, 1);
      }
      // Each is counted once its work has ended, just after its answer.
      await eventually(`${before + users.length} answered`, async () => (await answered()) >= before + users.length, 5000);
      expect(await answered()).toBe(before + users.length);
      return metrics();
    };
    const first = await askAs(['ULABEL1', 'ULABEL2', 'ULABEL3'], 7001);
    const second = await askAs(['ULABEL4', 'ULABEL5', 'ULABEL6'], 7004);
    expect([...seriesOf(second)].sort()).toEqual([...seriesOf(first)].sort());
    const labels = [...seriesOf(second)].join('\n');
    for (const id of ['ULABEL', 'ulabel', '7001:WPDS', '7006:WPDS']) expect(labels).not.toContain(id);
  });
});

describe('load shedding', () => {
  it('turns new commands away at once, kindly, while too many are in flight, and takes them again after', async () => {
    const busy = await startHarness({ maxInFlight: 3, startScheduler: false });
    try {
      await busy.link('UADA', 'approver');
      busy.service.setDelay(1_000);
      const slow = await Promise.all([1, 2, 3].map(() => busy.command('UADA', '/approvals', 'page-size:1')));
      const turned = await busy.command('UADA', '/approvals', 'page-size:1');
      expect(turned.ackMs).toBeLessThan(1000);
      expect(JSON.parse(turned.body).text).toContain('countersign is very busy right now');
      for (const s of slow) expect(textOf((await busy.slack.waitForResponses(s.responseId, 1))[0])).toContain('Pending approvals');
      busy.service.setDelay(0);
      const again = await busy.command('UADA', '/approvals', 'page-size:1');
      expect(textOf((await busy.slack.waitForResponses(again.responseId, 1))[0])).toContain('Pending approvals');
    } finally {
      await busy.close();
    }
  });
});

describe('rate limit', () => {
  it('answers kindly, at once, past the per-minute limit, and sends nothing to the service', async () => {
    // Help and the like never reach the service, so they are not counted: twenty of them pass.
    for (let i = 0; i < 20; i++) {
      const help = await h.command('URUSH', '/approvals', i % 2 === 0 ? 'help' : 'whoami');
      expect(JSON.parse(help.body || '{}').text ?? '').not.toMatch(/^Easy there/);
    }
    const before = h.service.calls.get('findApprovals') ?? 0;
    for (let i = 0; i < 5; i++) await h.command('URUSH', '/approvals', 'page-size:1');
    const limited = await h.command('URUSH', '/approvals', 'page-size:1');
    expect(limited.status).toBe(200);
    expect(JSON.parse(limited.body)).toMatchObject({ response_type: 'ephemeral' });
    expect(JSON.parse(limited.body).text).toMatch(
      /^Easy there: countersign takes up to 5 commands a minute from one person.*Try again in \d+ s\.$/,
    );
    await settled(h);
    expect(h.slack.responses(limited.responseId)).toEqual([]);
    // URUSH is not linked: the five that were taken were answered "not linked" without a call; the sixth was not even taken.
    expect(h.service.calls.get('findApprovals') ?? 0).toBe(before);
    // Someone else is not slowed by it.
    const other = await h.command('UADA', '/approvals', 'help');
    expect(textOf((await h.slack.waitForResponses(other.responseId, 1))[0])).toContain('/approvals');
    const rateLimited = /countersign_requests_total\{type="command",name="\/approvals",outcome="rate_limited"\} 1/;
    expect(await metricsMatching(rateLimited)).toMatch(rateLimited);
  });
});
