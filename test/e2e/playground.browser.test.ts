/**
 * Local mode in a real browser: Debian's Chromium driven by playwright-core. Skipped, saying so,
 * where /usr/bin/chromium is missing (.ci/run installs it). Screenshots go to test-artifacts/.
 */

import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startCountersign } from '../../src/main.js';
import { COLLECT_USAGE } from '../../src/parse/collect.js';
import { startLocal } from '../../src/playground/local.js';
import { createLogger } from '../../src/runtime/logger.js';
import { ROOT } from '../helpers/spawn.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`playground browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);

const ARTIFACTS = join(ROOT, 'test-artifacts');
const dir = mkdtempSync(join(tmpdir(), 'countersign-local-'));
let local: Awaited<ReturnType<typeof startLocal>>;
let browser: Browser;
let page: Page;
const logs: string[] = [];
/** Stands in for the service's own page of an approval, where Open leads. */
let servicePages: Server;
const opened: string[] = [];

beforeAll(async () => {
  if (!available) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  servicePages = createServer((req, res) => {
    opened.push(req.url ?? '');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<title>The service’s page</title><p>An approval in the service');
  });
  await new Promise<void>((resolve) => servicePages.listen(0, '127.0.0.1', resolve));
  const { port } = servicePages.address() as { port: number };
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: `sqlite:${join(dir, 'countersign.db')}`,
    APPROVAL_URL_TEMPLATE: `http://127.0.0.1:${port}/aveksa/main?WorkItemId={WorkItemId}`,
  });
  if (config.mode !== 'local') throw new Error('no Slack credentials were given, so this is local mode');
  local = await startLocal(config, startCountersign, {
    logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }),
    // The demo's runs take seconds, as a person watching would see them; here they take a fraction of that.
    runTimings: { queuedMs: 300, runningMs: 1_200 },
    runWatch: { tickMs: 200, firstPollMs: 300, maxIntervalMs: 500 },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(local.url);
});
afterAll(async () => {
  await browser?.close();
  await local?.shutdown();
  await new Promise((resolve) => servicePages?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function type(text: string) {
  await page.fill('#text', text);
  await page.press('#text', 'Enter');
}
// Page-side checks run in the browser (and not as strings: the page's CSP forbids eval); the
// project's types are Node's, so the few DOM members used are typed here.
type PageDocument = { body: { innerText: string }; querySelector(selector: string): { textContent: string | null } | null };
const see = (text: string) =>
  page.waitForFunction((t) => (globalThis as unknown as { document: PageDocument }).document.body.innerText.includes(t), text);
const header = (text: string) =>
  page.waitForFunction(
    (t) => (globalThis as unknown as { document: PageDocument }).document.querySelector('.bk-header')?.textContent === t,
    text,
  );
const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `playground-${name}.png`) });

describe.skipIf(!available)('local mode in a browser', () => {
  it('shows the usage hint while a command is typed', async () => {
    await page.fill('#text', '/collect AD');
    await page.dispatchEvent('#text', 'input');
    expect(await page.textContent('#usage')).toBe(COLLECT_USAGE);
    await page.fill('#text', '');
  });

  it('clears the usage hint once the command is sent', async () => {
    await page.fill('#text', '/approvals whoami');
    await page.dispatchEvent('#text', 'input');
    expect(await page.textContent('#usage')).not.toBe('');
    await page.press('#text', 'Enter');
    await see('this is what countersign holds for you');
    expect(await page.textContent('#usage')).toBe('');
  });

  it('shows the demo approver her pending approvals, marked as visible to her only', async () => {
    await type('/approvals');
    await page.waitForSelector('.msg.ephemeral .bk-header');
    expect(await page.textContent('.msg.ephemeral .bk-header')).toBe('Pending approvals');
    expect(await page.locator('.msg.ephemeral .eph').first().textContent()).toContain('Only visible to you');
    expect(await page.locator('.msg.ephemeral code').count()).toBeGreaterThanOrEqual(10);
    // A request named with markup is shown exactly as the service named it.
    expect(await page.locator('.msg.ephemeral').last().innerText()).toContain('Add Access for *bold* _italic_ ~strike~ `code`');
    // Tall enough for the whole first page: this one illustrates the README.
    await page.setViewportSize({ width: 1200, height: 1250 });
    await shot('1-approvals');
    await page.setViewportSize({ width: 1200, height: 900 });
  });

  it('replaces page 1 with page 2 on Next, and back on Previous', async () => {
    const messages = await page.locator('.msg').count();
    const firstIds = await page.locator('.msg.ephemeral code').allTextContents();
    await page.click('button[data-action-id="approvals:next"]');
    await header('Pending approvals · page 2');
    expect(await page.locator('.msg').count()).toBe(messages);
    expect(await page.locator('.msg.ephemeral code').allTextContents()).not.toEqual(firstIds);
    await shot('2-page-2');
    await page.click('button[data-action-id="approvals:previous"]');
    await header('Pending approvals');
    expect(await page.locator('.msg.ephemeral code').allTextContents()).toEqual(firstIds);
  });

  it('opens an approval’s Details in a modal, and pages its request items inside it', async () => {
    const modal = page.locator('#modal');
    const details = page.locator('.msg.ephemeral').last().locator('button[data-action-id="approval:details"]');
    expect(await details.count()).toBeGreaterThanOrEqual(10);
    let paged = false;
    for (let i = 0; i < (await details.count()) && !paged; i++) {
      await details.nth(i).click();
      await modal.getByText('What the request asks for').waitFor();
      expect(await modal.locator('h2').textContent()).toBe('Approval details');
      expect(await modal.innerText()).toMatch(/In the service this step can end as/);
      const next = modal.locator('button[data-action-id="details:next"]');
      if ((await next.count()) > 0) {
        await shot('10-details');
        await next.click();
        await modal.getByText(/items 11–/).waitFor();
        expect(await modal.locator('button[data-action-id="details:previous"]').count()).toBe(1);
        await shot('11-details-page-2');
        await modal.locator('button[data-action-id="details:previous"]').click();
        await modal.getByText(/items 1–10/).waitFor();
        paged = true;
      }
      await page.click('#modal-cancel');
      await modal.waitFor({ state: 'hidden' });
    }
    expect(paged).toBe(true);
  });

  it('opens the approval’s page in the service from Open, in a new tab', async () => {
    const open = page.locator('.msg.ephemeral').last().locator('a[data-action-id="approval:open"]').first();
    const id = await page.locator('.msg.ephemeral').last().locator('code').first().textContent();
    const [tab] = await Promise.all([page.waitForEvent('popup'), open.click()]);
    await tab.waitForLoadState();
    expect(tab.url()).toContain(`/aveksa/main?WorkItemId=${encodeURIComponent(id ?? '')}`);
    expect(await tab.title()).toBe('The service’s page');
    expect(opened).toContain(`/aveksa/main?WorkItemId=${encodeURIComponent(id ?? '')}`);
    await tab.close();
  });

  it('decides an approval in three clicks and a comment: Details, the action, its Send; the list then says so', async () => {
    const modal = page.locator('#modal');
    // This command's own list, not an earlier one on the page: under load it comes after the first looks.
    const lists = await page.locator('.msg.ephemeral .bk-header').count();
    await type('/approvals');
    await expect.poll(() => page.locator('.msg.ephemeral .bk-header').count(), { timeout: 15_000 }).toBe(lists + 1);
    const list = page.locator('.msg.ephemeral').last();
    const details = list.locator('button[data-action-id="approval:details"]');
    let action: string | undefined;
    for (let i = 0; i < (await details.count()) && action === undefined; i++) {
      await details.nth(i).click();
      await modal.getByText('What the request asks for').waitFor();
      const choices = modal.locator('button[data-action-id^="decision:choose:"]');
      if ((await choices.count()) >= 2) {
        // The second action the workflow lists: Rejected for approvals, Canceled for activities.
        // Each button says what it does, with the service's own name for the action: "Decide: Rejected".
        action = (await choices.nth(1).textContent())?.replace(/^Decide: /, '') ?? undefined;
        await shot('12-decide-details');
        await choices.nth(1).click();
      } else {
        await page.click('#modal-cancel');
        await modal.waitFor({ state: 'hidden' });
      }
    }
    if (action === undefined) throw new Error('nothing on the first page can be decided here');
    await modal.getByText(`You are deciding this approval as ${action}:`).waitFor();
    // The submit names what it sends: Slack draws it in one style whatever it does.
    expect(await modal.locator('button.primary').textContent()).toBe(`Send: ${action}`);
    const comment = modal.locator('textarea[name="decision:comment|value"]');
    if (action === 'Rejected') {
      // Rejected needs a comment: an empty one is refused in the modal, and nothing is sent.
      await modal.locator('button.primary').click();
      await modal.getByText('Rejected needs a comment').waitFor();
    }
    await comment.fill('Not needed any more: <b>moved</b> to *Finance*');
    await shot('13-decide-confirm');
    await modal.locator('button.primary').click();
    await modal.getByText('Done: the Command Service took your decision').waitFor();
    expect(await modal.innerText()).toContain(`It shows it completed as ${action}`);
    await shot('14-decided');
    // Closing the outcome goes back to the Details, which now say it was decided, and offer nothing more.
    await page.click('#modal-cancel');
    await modal.getByText(`${action} by you from Slack`).waitFor();
    expect(await modal.locator('button[data-action-id^="decision:choose:"]').count()).toBe(0);
    await page.click('#modal-cancel');
    await modal.waitFor({ state: 'hidden' });
    // The list, in place: the row says so, with no buttons.
    // Waited for in the list itself: the page may show the words elsewhere first (the Details closing).
    await expect.poll(() => page.locator('.msg.ephemeral').last().innerText(), { timeout: 15_000 }).toContain(`${action} by you`);
    expect(await page.locator('.msg.ephemeral').last().innerText()).toContain(`${action} by you`);
  });

  it('shows the exact payload of a message on request', async () => {
    // The channel's last message: the Messages tab (hidden here) has its own, the arrivals' first line among them.
    await page.locator('#messages button.toggle').last().click();
    await page.waitForSelector('pre.payload');
    expect(await page.textContent('pre.payload')).toContain('"type": "header"');
  });

  it('lets the ops engineer run every collector after confirming, and the channel sees it', async () => {
    await page.selectOption('#who', 'U0DEMOOSCAR');
    await page.waitForFunction(() => !(globalThis as unknown as { document: PageDocument }).document.querySelector('.bk-header'));
    await type('/collect');
    await page.waitForSelector('button[data-action-id="collect:run"]');
    await shot('3-confirm');
    await page.click('button[data-action-id="collect:run"]');
    await see('started 7 collections');
    const channelMessage = page.locator('.msg:not(.ephemeral)', { hasText: 'started 7 collections' });
    expect(await channelMessage.count()).toBe(1);
    expect(await channelMessage.textContent()).toContain('@Oscar Ops started 7 collections');
    await shot('4-collect');
    await page.selectOption('#who', 'U0DEMOADA');
    await see('started 7 collections');
  });

  it('tells the starter by direct message, in the app’s Messages tab, when a run aborts', { timeout: 60_000 }, async () => {
    await page.selectOption('#who', 'U0DEMOOSCAR');
    // AWS IAM's circuit breaker is tripped in the demo data: its run ends Aborted about ten seconds in.
    await page.click('.tab[data-tab="dms"]');
    await page.waitForFunction(
      () => (globalThis as unknown as { document: PageDocument }).document.body.innerText.includes('has ended Aborted'),
      undefined,
      { timeout: 45_000 },
    );
    const dm = await page.locator('#dms .msg').last().innerText();
    // The channel is named as Slack names it, not by its id.
    // What the service said of the runs: the bare /collect of a moment ago started seven, AWS IAM's aborted.
    expect(dm).toContain('Your collection in #identity-ops: the Command Service says 1 of its 7 runs has ended Aborted.');
    expect(dm).toContain('AWS IAM');
    expect(dm).not.toContain('Only visible to you');
    await shot('8-dm');
    // The channel itself does not show it.
    await page.click('.tab[data-tab="channel"]');
    expect(await page.locator('#messages .msg', { hasText: 'has ended Aborted' }).count()).toBe(0);
    await page.selectOption('#who', 'U0DEMOADA');
  });

  it('fits a narrow screen: the sidebar becomes a bar above the channel', async () => {
    await page.setViewportSize({ width: 420, height: 800 });
    await shot('9-narrow');
    const nav = await page.locator('nav').boundingBox();
    const main = await page.locator('main').boundingBox();
    expect(nav?.height ?? 800).toBeLessThan(160);
    expect(main?.width ?? 0).toBeGreaterThan(400);
    await page.setViewportSize({ width: 1200, height: 900 });
  });

  it('lets a user without a token open login, link one, and see approvals', async () => {
    await page.selectOption('#who', 'U0DEMONEW');
    await type('/approvals');
    await see('not linked to the Command Service');
    await type('/approvals login');
    await page.waitForSelector('#modal input[name="username|value"]');
    // A wrong password, then the form sent again without one: only what is wrong now shows.
    await page.fill('#modal input[name="username|value"]', 'katherine.johnson');
    await page.fill('#modal input[name="password|value"]', 'not-it');
    await page.click('#modal button.primary');
    await page.locator('#modal').getByText('did not accept that username and password').waitFor();
    await page.click('#modal button.primary');
    await page.locator('#modal').getByText('Give the password too.').waitFor();
    expect(await page.locator('#modal').innerText()).not.toContain('did not accept');
    await page.fill('#modal input[name="username|value"]', 'katherine.johnson');
    await page.fill('#modal input[name="password|value"]', 'demo');
    await page.fill('#modal input[name="authsource|value"]', 'corp-ldap');
    await shot('5-login');
    await page.click('#modal button.primary');
    await see('Linked: countersign can list your approvals and start collections for you.');
    await shot('6-linked');
    await page.click('#modal-cancel');
    await type('/approvals');
    await page.waitForSelector('.msg.ephemeral .bk-header');
    expect(await page.textContent('.msg.ephemeral .bk-header')).toBe('Pending approvals');
    // The Home tab, published when opened, now says what Nadia has linked.
    await page.click('.tab[data-tab="home"]');
    await see('To list your approvals: linked');
    await shot('7-home');
    await page.click('.tab[data-tab="channel"]');
  });

  it('shows Unlink’s confirm dialog as Slack does before anything is sent, saying what goes; Keep it sends nothing', async () => {
    await page.selectOption('#who', 'U0DEMOGRACE');
    await page.click('.tab[data-tab="home"]');
    await see('To list your approvals: linked');
    const dialog = page.locator('#confirm');
    await page.click('#home button[data-action-id="home:unlink"]');
    await dialog.waitFor();
    expect(await dialog.locator('h2').textContent()).toBe('Unlink your account?');
    // Grace's links were made by an admin (local mode links the demo users): the dialog says so.
    expect(await dialog.innerText()).toContain('countersign forgets the token an admin linked for you as “grace.hopper”');
    expect(await dialog.locator('#confirm-ok').textContent()).toBe('Unlink');
    expect(await dialog.locator('#confirm-deny').textContent()).toBe('Keep it');
    await shot('15-unlink-confirm');
    await dialog.locator('#confirm-deny').click();
    await dialog.waitFor({ state: 'hidden' });
    // Nothing was sent: after the app has had time to act on a click, Home drawn afresh still shows her links.
    await new Promise((r) => setTimeout(r, 500));
    await page.click('#home button[data-action-id="home:refresh"]');
    await new Promise((r) => setTimeout(r, 500));
    await see('To start collections: linked as grace.hopper');
    await page.click('#home button[data-action-id="home:unlink"]');
    await dialog.locator('#confirm-ok').click();
    await see('Welcome to countersign');
    await page.click('.tab[data-tab="channel"]');
  });

  it('answers a mistake with the right form, and an unknown command as Slack would', async () => {
    await page.selectOption('#who', 'U0DEMOADA');
    await type('/approvals entitlment-name:VPN');
    await see('Did you mean');
    await type('/deploy prod');
    await see('/deploy is not a valid command');
  });

  it('keeps the page free of script errors, and the logs free of tokens', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.reload();
    await page.waitForSelector('#text');
    expect(errors).toEqual([]);
    expect(logs.join('\n')).not.toMatch(/ws[0-9a-f]{12}:-/);
  });
});
