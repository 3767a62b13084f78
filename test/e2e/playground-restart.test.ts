/**
 * Local mode stopped and started again on the same data directory, as `npm start` twice is: what
 * countersign remembers and what the embedded service shows agree afterwards. An approval decided
 * in the playground stays decided in the service (before, the service's demo data was made afresh
 * at each start while countersign's records were kept, so the approval came back pending, "overdue
 * by 19 days", beside "Accepted by you"), and the page says where the data is kept and how to start
 * afresh. Driven through the page's own requests, as the browser sends them.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startCountersign } from '../../src/main.js';
import { decodeDetailsButton } from '../../src/parse/details.js';
import { startLocal } from '../../src/playground/local.js';
import { createLogger } from '../../src/runtime/logger.js';
import { eventually } from '../helpers/eventually.js';
import { visible } from '../helpers/visible.js';

type Local = Awaited<ReturnType<typeof startLocal>>;
type Element = { action_id?: string; value?: string; text?: { text: string } };
interface State {
  messages: Array<{ id: number; blocks: Array<{ type: string; elements?: Element[] }> }>;
  modal: { blocks: Array<{ type: string; elements?: Element[] }>; title: { text: string } } | null;
  modals: number;
}

const dir = mkdtempSync(join(tmpdir(), 'countersign-playground-restart-'));
const ADA = 'U0DEMOADA';
let local: Local | undefined;

async function start(databaseUrl = `sqlite:${join(dir, 'data', 'countersign.db')}`): Promise<Local> {
  const config = loadConfig({ PORT: '0', DATABASE_URL: databaseUrl });
  if (config.mode !== 'local') throw new Error('no Slack credentials were given, so this is local mode');
  return startLocal(config, startCountersign, { logger: createLogger({ level: 'warn', write: () => {} }) });
}

afterAll(async () => {
  await local?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

async function page(path: string, body: Record<string, unknown>): Promise<unknown> {
  const at = (local as Local).url;
  const res = await request(`${at}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: at },
    body: JSON.stringify(body),
  });
  return res.body.json();
}

async function state(): Promise<State> {
  return (await (await request(`${(local as Local).url}/playground/state?user=${ADA}`)).body.json()) as State;
}

function until(what: string, test: (s: State) => boolean): Promise<State> {
  let last: State | undefined;
  return eventually(
    () => `${what}: ${last?.modal ? visible(last.modal.blocks as never).slice(0, 600) : 'no modal'}`,
    async () => {
      last = await state();
      return test(last) ? last : undefined;
    },
    15_000,
  );
}

const modalText = (s: State) => (s.modal ? visible(s.modal.blocks as never) : '');
const decisionButtons = (s: State) =>
  (s.modal?.blocks ?? []).flatMap((b) => b.elements ?? []).filter((e) => e.action_id?.startsWith('decision:choose:'));

/** Details of `id` as Ada opens them by typing `/approvals show <id>`, once the service has answered. */
async function details(id: string): Promise<State> {
  if ((await state()).modal !== null) await page('/playground/close', { user: ADA });
  await page('/playground/command', { user: ADA, text: `/approvals show ${id}` });
  return until('the details', (s) => modalText(s).includes(id) && !modalText(s).includes('Asking the Command Service'));
}

describe('local mode started again on the same data', () => {
  let decided = '';

  it('decides one of Ada’s approvals in the playground, and the page says the data is kept', async () => {
    local = await start();
    const html = await (await request(local.url)).body.text();
    expect(html).toContain('Data kept in');
    expect(html).toContain('delete it to start afresh');
    await page('/playground/command', { user: ADA, text: '/approvals page-size:20' });
    const listed = await until('a page', (s) => s.messages.some((m) => m.blocks.some((b) => b.type === 'actions')));
    const ids = listed.messages
      .flatMap((m) => m.blocks)
      .flatMap((b) => b.elements ?? [])
      .filter((e) => e.action_id === 'approval:details')
      .map((e) => decodeDetailsButton(e.value)?.approvalId ?? '');
    for (const id of ids) {
      const shown = await details(id);
      const button = decisionButtons(shown)[0];
      if (button === undefined) continue;
      await page('/playground/action', { user: ADA, surface: 'modal', actionId: button.action_id, value: button.value });
      await until('the confirmation', (s) => s.modals === 2);
      await page('/playground/submit', { user: ADA, values: { 'decision:comment|value': 'Fine by me.' } });
      await until('the outcome', (s) => modalText(s).includes('Done: the Command Service took your decision'));
      decided = id;
      break;
    }
    expect(decided).not.toBe('');
    expect(modalText(await details(decided))).toContain('by you');
  });

  it('shows it decided in the service after a restart, not waiting again beside "by you"', async () => {
    await local?.shutdown();
    local = await start();
    const shown = await details(decided);
    const text = modalText(shown);
    expect(text).toContain('by you');
    // The service's own record, kept: completed, by Ada, and nothing left to decide.
    expect(text).toContain('Lovelace, Ada completed this step on');
    expect(text).toContain('This step is done: nothing is left to decide.');
    expect(text).not.toContain('overdue');
    expect(decisionButtons(shown)).toEqual([]);
    // And it is not on her pending list any more.
    await page('/playground/close', { user: ADA });
    await page('/playground/command', { user: ADA, text: `/approvals approval-id:${decided}` });
    await until('the list', (s) => s.messages.some((m) => visible(m.blocks as never).includes('No approvals match these filters.')));
  });

  it('starts both afresh with an in-memory database, and the page says so', async () => {
    await local?.shutdown();
    local = await start('sqlite::memory:');
    const html = await (await request(local.url)).body.text();
    expect(html).toContain('Data is not kept');
    expect(modalText(await details(decided))).not.toContain('by you');
  });

  it('says so when the service’s data is new beside countersign’s kept from before (an older version kept it in memory)', async () => {
    await local?.shutdown();
    const older = join(dir, 'older');
    local = await start(`sqlite:${join(older, 'countersign.db')}`);
    await local.shutdown();
    rmSync(join(older, 'reference.db'));
    local = await start(`sqlite:${join(older, 'countersign.db')}`);
    const html = await (await request(local.url)).body.text();
    expect(html).toContain(
      `The demo service’s data in ${older} is new, but countersign’s is kept from an earlier start`.replace(/’/g, "'"),
    );
    expect(local.data).toMatchObject({ kept: true, dir: older });
  });
});
