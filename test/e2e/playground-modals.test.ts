/**
 * The playground plays Slack's modals as the app needs them, through the page's own requests (no
 * browser): a click in a message opens a modal (views.open) that the app fills in (views.update); a
 * click inside the modal goes out with the view and no response_url; views.push stacks the sign-in
 * modal over it, the one underneath can still be updated, and closing the top goes back to it.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startCountersign } from '../../src/main.js';
import { decodeDetailsButton } from '../../src/parse/details.js';
import { startLocal } from '../../src/playground/local.js';
import { createLogger } from '../../src/runtime/logger.js';
import { eventually } from '../helpers/eventually.js';
import { visible } from '../helpers/visible.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-playground-modals-'));
let local: Awaited<ReturnType<typeof startLocal>>;

beforeAll(async () => {
  const config = loadConfig({ PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'countersign.db')}` });
  if (config.mode !== 'local') throw new Error('no Slack credentials were given, so this is local mode');
  local = await startLocal(config, startCountersign, { logger: createLogger({ level: 'warn', write: () => {} }) });
});
afterAll(async () => {
  await local?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

interface State {
  messages: Array<{ id: number; blocks: Array<{ type: string; elements?: Array<{ action_id?: string; value?: string }> }> }>;
  modal: { blocks: unknown[]; title: { text: string } } | null;
  modals: number;
}

async function page(path: string, body: Record<string, unknown>): Promise<unknown> {
  const res = await request(`${local.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: local.url },
    body: JSON.stringify(body),
  });
  return res.body.json();
}

async function state(user: string): Promise<State> {
  return (await (await request(`${local.url}/playground/state?user=${user}`)).body.json()) as State;
}

async function until(user: string, what: string, test: (s: State) => boolean): Promise<State> {
  let s: State | undefined;
  return eventually(
    () => `${what}: ${JSON.stringify(s?.modal).slice(0, 400)}`,
    async () => {
      s = await state(user);
      return test(s) && s;
    },
  );
}

const modalText = (s: State) => (s.modal ? visible(s.modal.blocks) : '');

describe('times in local mode', () => {
  it('shows the embedded service’s times in each user’s own Slack zone, named: local mode tells the app the service’s zone', async () => {
    await page('/playground/command', { user: 'U0DEMOGRACE', text: '/approvals page-size:3' });
    const listed = await until('U0DEMOGRACE', 'a page', (s) =>
      s.messages.some((m) => visible(m.blocks as never).includes('Pending approvals')),
    );
    const text = visible((listed.messages.find((m) => visible(m.blocks as never).includes('Pending approvals'))?.blocks ?? []) as never);
    expect(text).toMatch(/Due \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} Los Angeles time/);
    expect(text).not.toContain('service time');
  });
});

describe('modals in the playground', () => {
  let approvalId = '';

  it('opens Details from a message and fills it in; Next inside the modal pages it in place', async () => {
    await page('/playground/command', { user: 'U0DEMOADA', text: '/approvals page-size:20' });
    const listed = await until('U0DEMOADA', 'a page', (s) => s.messages.some((m) => m.blocks.some((b) => b.type === 'actions')));
    const message = listed.messages.filter((m) => m.blocks.some((b) => b.type === 'actions')).at(-1);
    const buttons = (message?.blocks ?? []).flatMap((b) => b.elements ?? []).filter((e) => e.action_id === 'approval:details');
    for (const button of buttons) {
      approvalId = decodeDetailsButton(button.value)?.approvalId ?? '';
      await page('/playground/action', {
        user: 'U0DEMOADA',
        surface: 'message',
        messageId: message?.id,
        actionId: 'approval:details',
        value: button.value,
      });
      const shown = await until(
        'U0DEMOADA',
        'the details',
        (s) => modalText(s).includes(approvalId) && modalText(s).includes('What the request asks for'),
      );
      expect(shown.modals).toBe(1);
      if (!modalText(shown).includes('[Next page]')) continue;
      await page('/playground/action', { user: 'U0DEMOADA', surface: 'modal', actionId: 'details:next', value: '2' });
      const second = await until('U0DEMOADA', 'page 2', (s) => modalText(s).includes('items 11–'));
      expect(second.modals).toBe(1);
      return;
    }
    throw new Error('no approval on the page has more than ten items');
  });

  it('pushes the sign-in modal over the details, updates the one underneath, and goes back to it when closed', async () => {
    await page('/playground/command', { user: 'U0DEMONEW', text: `/approvals show ${approvalId}` });
    const unlinked = await until('U0DEMONEW', 'the not-linked view', (s) => modalText(s).includes('[Link your account]'));
    expect(unlinked.modals).toBe(1);
    await page('/playground/action', { user: 'U0DEMONEW', surface: 'modal', actionId: 'details:relink', value: 'link' });
    const pushed = await until('U0DEMONEW', 'the pushed sign-in modal', (s) => s.modals === 2);
    expect(pushed.modal?.title.text).toBe('Link your account');
    const submitted = (await page('/playground/submit', {
      user: 'U0DEMONEW',
      values: { 'username|value': 'ada.lovelace', 'password|value': 'demo' },
    })) as { status: number };
    expect(submitted.status).toBe(200);
    await until('U0DEMONEW', 'linked', (s) => modalText(s).includes('Linked: countersign can'));
    await page('/playground/close', { user: 'U0DEMONEW' });
    const back = await until(
      'U0DEMONEW',
      'the details underneath',
      (s) => s.modals === 1 && modalText(s).includes('What the request asks for'),
    );
    expect(modalText(back)).toContain(approvalId);
    await page('/playground/close', { user: 'U0DEMONEW' });
    expect((await state('U0DEMONEW')).modal).toBeNull();
  });
});
