/**
 * Local mode shows arrivals: the page's "Make an approval arrive" gives the current user's linked
 * account a new pending approval in the demo service; the app's next check messages it to them in
 * the page's Messages tab; decided from that message, it is redrawn in place. Through the page's own
 * requests (no browser), on a clock the test moves.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalConfig, loadConfig } from '../../src/config.js';
import { startCountersign } from '../../src/main.js';
import { startLocal } from '../../src/playground/local.js';
import { COMMENT_FIELD, DECISION_ACTIONS } from '../../src/render/decision.js';
import { createLogger } from '../../src/runtime/logger.js';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { visible } from '../helpers/visible.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-playground-arrivals-'));
const clock = new TestClock(new Date());
let config: LocalConfig;
let local: Awaited<ReturnType<typeof startLocal>>;

beforeAll(async () => {
  const loaded = loadConfig({ PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'countersign.db')}` });
  if (loaded.mode !== 'local') throw new Error('no Slack credentials were given, so this is local mode');
  config = loaded;
  // The app looks for approvers due a check often; which are due is the test's clock's to say.
  local = await startLocal(config, startCountersign, {
    logger: createLogger({ level: 'warn', write: () => {} }),
    now: clock.now,
    arrivals: { tickMs: 25 },
  });
});
afterAll(async () => {
  await local?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

type Block = {
  type: string;
  block_id?: string;
  elements?: Array<{ type?: string; action_id?: string; value?: string; text?: { text: string } }>;
};
interface Message {
  id: number;
  ts: string;
  channel: string;
  text: string;
  blocks: Block[];
}
interface State {
  messages: Message[];
  modal: { blocks: unknown[]; title: { text: string } } | null;
}

async function page(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await request(`${local.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: local.url },
    body: JSON.stringify(body),
  });
  return (await res.body.json()) as Record<string, unknown>;
}

async function state(user: string): Promise<State> {
  return (await (await request(`${local.url}/playground/state?user=${user}`)).body.json()) as State;
}

const read = (m: Message | undefined) => (m === undefined ? '' : `${m.text}\n${visible(m.blocks as never)}`);
/** The app's direct messages to this user, as the page's Messages tab lists them. */
const dms = async (user: string) => (await state(user)).messages.filter((m) => m.channel.startsWith('D'));

async function untilDm(user: string, what: string, test: (m: Message) => boolean): Promise<Message> {
  let seen: Message[] = [];
  return eventually(
    () => `${what}; the DMs: ${seen.map(read).join(' | ').slice(0, 600)}`,
    async () => {
      seen = await dms(user);
      return seen.find(test) ?? false;
    },
  );
}

describe('Make an approval arrive', () => {
  it('is on the page, and what the control makes arrive comes as a DM at the next check, decided there and redrawn in place', async () => {
    const html = await (await request(local.url)).body.text();
    expect(html).toContain('Make an approval arrive');

    // The first check of each linked user counts what already waits, and announces none of it.
    await untilDm('U0DEMOADA', 'the first check', (m) => read(m).includes('approvals already wait for you'));

    const made = await page('/playground/arrive', { user: 'U0DEMOADA' });
    expect(made.arrived).toBe(true);
    const said = String(made.said);
    expect(said).toContain('for ada.lovelace');
    expect(said).toContain('Messages');
    const name = /“(.+)”/.exec(said)?.[1] ?? '';
    expect(name).toMatch(/^Add Access for /);
    // Not before the next check: the service has no events, and countersign asks at its interval.
    expect((await dms('U0DEMOADA')).some((m) => read(m).includes(name))).toBe(false);

    clock.advance(config.notifyIntervalMs ?? 0);
    const arrived = await untilDm('U0DEMOADA', `the DM of ${name}`, (m) => read(m).includes(name));
    expect(read(arrived)).toContain('A new approval for you');
    // Only its approver sees it.
    expect((await dms('U0DEMOGRACE')).some((m) => read(m).includes(name))).toBe(false);

    // Decided from the DM on the page: the confirmation, Send, and the same message says who decided.
    const buttons = arrived.blocks.flatMap((b) =>
      b.type === 'actions' ? (b.elements ?? []).map((e) => ({ ...e, blockId: b.block_id })) : [],
    );
    const decide = buttons.find((e) => DECISION_ACTIONS.choose.includes(e.action_id ?? '') && e.text?.text.startsWith('Decide: '));
    if (decide === undefined) throw new Error(`no decision button in ${read(arrived)}`);
    await page('/playground/action', {
      user: 'U0DEMOADA',
      surface: 'message',
      messageId: arrived.id,
      actionId: decide.action_id,
      value: decide.value,
      blockId: decide.blockId,
    });
    await eventually('the confirmation', async () => {
      const s = await state('U0DEMOADA');
      return s.modal !== null && visible(s.modal.blocks as never).includes(name) && !visible(s.modal.blocks as never).includes('Checking');
    });
    const submitted = await page('/playground/submit', {
      user: 'U0DEMOADA',
      values: { [`${COMMENT_FIELD.block}|${COMMENT_FIELD.action}`]: 'from the playground' },
    });
    expect(submitted.errors).toBeUndefined();
    const decided = await untilDm('U0DEMOADA', 'the DM redrawn as decided', (m) => m.id === arrived.id && read(m).includes('by you'));
    expect(decided.ts).toBe(arrived.ts);
    expect((await dms('U0DEMOADA')).filter((m) => read(m).includes(name))).toHaveLength(1);
  });

  it('says so, and makes nothing arrive, for a user with no linked account', async () => {
    const made = await page('/playground/arrive', { user: 'U0DEMONEW' });
    expect(made.arrived).toBe(false);
    expect(String(made.said)).toContain('/approvals login');
  });
});
