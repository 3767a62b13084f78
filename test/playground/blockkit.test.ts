import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockKitRenderer } from '../../src/playground/blockkit.js';
import { renderApprovalsPage } from '../../src/render/approvals.js';
import { timeFrame } from '../../src/time/frame.js';

const bk = blockKitRenderer();

describe('playground mrkdwn', () => {
  it('renders bold, italic, strike, code, quotes and line breaks', () => {
    expect(bk.mrkdwn('*bold* _it_ ~gone~ `x*y*`\n> quoted')).toBe(
      '<b>bold</b> <i>it</i> <s>gone</s> <code>x*y*</code><br><blockquote>quoted</blockquote>',
    );
  });
  it('shows escaped text literally and inertly', () => {
    expect(bk.mrkdwn('&lt;!channel&gt; &amp; &lt;b&gt;x&lt;/b&gt;')).toBe('&lt;!channel&gt; &amp; &lt;b&gt;x&lt;/b&gt;');
  });
  it('renders links and mentions, and never raw markup', () => {
    expect(bk.mrkdwn('<https://x.test/a?b=1&amp;c=2|the link> <@U123> <!here>')).toBe(
      '<a href="https://x.test/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">the link</a> <span class="mention">@U123</span> <span class="mention special">@here</span>',
    );
    expect(bk.mrkdwn('<javascript:alert(1)|x>')).not.toContain('<a');
    expect(bk.mrkdwn('a "quote" & <img src=x onerror=alert(1)>')).not.toMatch(/<img/);
  });
  it('shows <!date^…> in the reader’s Slack zone (not the machine’s), never as a mention', () => {
    const text = 'started <!date^1795341600^{time}|2026-11-22 10:00 UTC> · <!date^1795341600^{date_short} {time_secs}|x>';
    let zone = 'Asia/Kolkata';
    const reader = blockKitRenderer({}, () => zone);
    expect(reader.mrkdwn(text)).toBe('started <time>15:30</time> · <time>22 Nov 15:30:00</time>');
    zone = 'America/Los_Angeles';
    expect(reader.mrkdwn(text)).toBe('started <time>02:00</time> · <time>22 Nov 02:00:00</time>');
    expect(bk.mrkdwn(text)).toContain('<time>10:00</time>');
    expect(reader.mrkdwn(text)).not.toContain('mention');
  });
  it('shows a known user by name', () => {
    expect(blockKitRenderer({ U123: 'Ada Lovelace' }).mrkdwn('<@U123> started')).toBe('<span class="mention">@Ada Lovelace</span> started');
  });
  it('turns the emoji the app uses into characters', () => {
    expect(bk.mrkdwn(':warning: :tada: :unknown:')).toBe('⚠️ 🎉 :unknown:');
  });
});

describe('playground blocks', () => {
  it('renders header, section, context, actions with styles, divider and input', () => {
    const html = bk.blocks([
      { type: 'header', text: { type: 'plain_text', text: 'Title <x>' } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '*a*' },
        fields: [{ type: 'mrkdwn', text: 'f1' }],
        accessory: { type: 'button', action_id: 'x:y', value: 'v"1', text: { type: 'plain_text', text: 'Go' } },
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'ctx' }] },
      {
        type: 'actions',
        block_id: 'b1',
        elements: [{ type: 'button', action_id: 'run', style: 'danger', text: { type: 'plain_text', text: 'Run' } }],
      },
      { type: 'divider' },
      {
        type: 'input',
        block_id: 'token',
        label: { type: 'plain_text', text: 'Token' },
        element: { type: 'plain_text_input', action_id: 'value' },
      },
    ]);
    expect(html).toContain('<div class="bk-header">Title &lt;x&gt;</div>');
    expect(html).toContain('data-value="v&quot;1"');
    expect(html).toContain('class="bk-button danger" data-action-id="run"');
    expect(html).toContain('<input name="token|value"');
    expect(html).toContain('<hr class="bk-divider">');
  });
  it('draws a link button as a link that opens its page in a new tab, and one it cannot open as a button that says why', () => {
    const html = bk.blocks([
      {
        type: 'actions',
        block_id: 'open',
        elements: [
          {
            type: 'button',
            action_id: 'approval:open',
            text: { type: 'plain_text', text: 'Open' },
            url: 'https://igl.example.com/aveksa/main?WorkItemId=1%3AA%3A1&x="y"',
          },
          { type: 'button', action_id: 'odd', text: { type: 'plain_text', text: 'Odd' }, url: 'javascript:alert(1)' },
        ],
      },
    ]);
    expect(html).toContain(
      '<a class="bk-button" data-action-id="approval:open" data-value="" href="https://igl.example.com/aveksa/main?WorkItemId=1%3AA%3A1&amp;x=&quot;y&quot;" target="_blank" rel="noopener noreferrer">Open</a>',
    );
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('disabled title="The playground opens only http and https links; this one is javascript:alert(1)"');
  });

  it('shows what it cannot render as raw JSON instead of dropping it', () => {
    expect(bk.blocks([{ type: 'video', title: { type: 'plain_text', text: 'x' } }])).toContain('<pre class="raw"');
    expect(bk.blocks([{ type: 'actions', elements: [{ type: 'multi_static_select' }] }])).toContain('multi_static_select');
  });
  it('draws a static select as a select of its options, the placeholder first', () => {
    const html = bk.blocks([
      {
        type: 'actions',
        block_id: 'details',
        elements: [
          {
            type: 'static_select',
            action_id: 'approval:details-select',
            placeholder: { type: 'plain_text', text: 'Details of…' },
            options: [{ text: { type: 'plain_text', text: '<b>x</b> · 1:A:1', emoji: false }, value: '1:A:1' }],
          },
        ],
      },
    ]);
    expect(html).toContain(
      '<select class="bk-select" data-action-id="approval:details-select"><option value="" selected disabled>Details of…</option>',
    );
    expect(html).toContain('<option value="1:A:1">&lt;b&gt;x&lt;/b&gt; · 1:A:1</option>');
  });
  it('renders every block of an approvals page without falling back to raw JSON', () => {
    const page = renderApprovalsPage({
      query: { 'page-size': 1, 'start-page': 2 },
      approvals: [
        {
          workItemId: '1:A:1',
          workItemName: 'W',
          requestName: '<!channel>',
          dueDate: '2026-11-24 10:00:00.0',
          completedDate: '',
          fields: {},
        },
      ],
      userId: 'U012ABC',
      frame: timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', 'UTC'),
    });
    const html = bk.blocks(page.blocks);
    expect(html).not.toContain('class="raw"');
    expect(html).toContain('&lt;!channel&gt;');
  });
});

describe('playground confirm dialogs', () => {
  it('keeps a button’s confirm dialog with it, whole, for the page to show before the click is sent', () => {
    const confirm = {
      title: { type: 'plain_text', text: 'Unlink your account?' },
      text: { type: 'plain_text', text: 'countersign forgets “the token” <b>an admin</b> linked' },
      confirm: { type: 'plain_text', text: 'Unlink' },
      deny: { type: 'plain_text', text: 'Keep it' },
      style: 'danger',
    };
    const html = bk.blocks([
      { type: 'actions', elements: [{ type: 'button', action_id: 'home:unlink', text: { type: 'plain_text', text: 'Unlink' }, confirm }] },
    ]);
    const attribute = /data-confirm="([^"]*)"/.exec(html)?.[1] ?? '';
    // Escaped once for the attribute: what the page reads back is the dialog as the app sent it.
    const read = attribute
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    expect(JSON.parse(read)).toEqual(confirm);
    expect(html).not.toContain('<b>');
    // Its words as Slack draws a text object: plain text exactly.
    expect(bk.text(confirm.text)).toBe('countersign forgets “the token” &lt;b&gt;an admin&lt;/b&gt; linked');
    expect(
      bk.blocks([{ type: 'actions', elements: [{ type: 'button', action_id: 'x', text: { type: 'plain_text', text: 'Go' } }] }]),
    ).not.toContain('data-confirm');
  });
});

describe('playground emoji', () => {
  /** Every emoji the app's messages and views use, read from their source: emoji('…') runs, group marks and :codes: in text. */
  function emojiTheAppUses(): string[] {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const path = join(dir, f);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts')) files.push(path);
      }
    };
    walk('src/render');
    walk('src/slack');
    const names = new Set<string>();
    for (const file of files) {
      // Comments name emoji only to say how they are shown.
      const code = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line))
        .join('\n');
      for (const m of code.matchAll(/(?:emoji|named)\('([a-z0-9_+-]+)'/g)) names.add(m[1] as string);
      for (const m of code.matchAll(/'([a-z_]+_circle)'/g)) names.add(m[1] as string);
      for (const m of code.matchAll(/(?<=['"`\s(]):([a-z][a-z0-9_+-]+):(?=['"`\s.,)])/g)) names.add(m[1] as string);
    }
    return [...names].sort();
  }

  it('draws every emoji the app uses as Slack does, as a character, in text and in rich text alike', () => {
    const names = emojiTheAppUses();
    expect(names.length).toBeGreaterThan(25);
    for (const name of ['large_orange_circle', 'large_blue_circle', 'red_circle', 'floppy_disk', 'lock']) expect(names).toContain(name);
    const literal = names.filter(
      (name) =>
        bk.mrkdwn(`:${name}:`) === `:${name}:` ||
        bk
          .blocks([{ type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'emoji', name }] }] }])
          .includes(`:${name}:`),
    );
    expect(literal).toEqual([]);
  });
});
