import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APPROVALS_USAGE } from '../src/parse/approvals.js';
import { COLLECT_USAGE } from '../src/parse/collect.js';
import { ROOT } from './helpers/spawn.js';

const manifest = parse(readFileSync(`${ROOT}/manifest.yml`, 'utf8'));

describe('manifest.yml', () => {
  it('declares both commands, with the forms the parsers accept, on /slack/events', () => {
    const commands = manifest.features.slash_commands as Array<{ command: string; url: string; usage_hint: string; description: string }>;
    expect(commands.map((c) => c.command)).toEqual(['/approvals', '/collect']);
    for (const c of commands) {
      expect(new URL(c.url).pathname).toBe('/slack/events');
      expect(c.usage_hint.length).toBeLessThanOrEqual(1000);
      expect(c.description.length).toBeLessThanOrEqual(100);
      for (const word of ['help', 'login', 'logout', 'whoami']) expect(c.usage_hint).toContain(word);
    }
    expect(commands[0]?.usage_hint).toContain('remind');
    expect(commands[0]?.usage_hint).toContain('show <approval-id>');
    expect(APPROVALS_USAGE).toContain('| show <approval-id> |');
    expect(APPROVALS_USAGE).toContain('help | login | logout');
    expect(COLLECT_USAGE).toContain('help | login | logout');
  });

  it('sends interactivity and events to /slack/events, with App Home and the scopes the app uses', () => {
    expect(new URL(manifest.settings.interactivity.request_url).pathname).toBe('/slack/events');
    expect(new URL(manifest.settings.event_subscriptions.request_url).pathname).toBe('/slack/events');
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    // Reminder digests are DMs: the Messages tab must exist, read-only.
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
    expect(manifest.features.app_home.messages_tab_read_only_enabled).toBe(true);
    expect(manifest.oauth_config.scopes.bot).toEqual(expect.arrayContaining(['commands', 'users:read', 'chat:write']));
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    expect(manifest.display_information.long_description.length).toBeGreaterThanOrEqual(175);
  });
});
