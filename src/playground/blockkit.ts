/**
 * A Block Kit renderer for the playground page, to HTML strings. It is one self-contained
 * function (no imports, no outside names) because the page embeds its source verbatim: the same
 * code runs in the browser and in the unit tests. Whatever it cannot render it shows as raw JSON,
 * never drops.
 */

export interface BlockKitRenderer {
  mrkdwn(text: string): string;
  plain(text: string): string;
  /** A text object (plain_text or mrkdwn), as Slack draws it. */
  text(t: unknown): string;
  blocks(blocks: unknown[]): string;
}

/**
 * `names` maps user and channel ids to names, as Slack shows <@U123> and <#C123> by name; `zoneOf`
 * gives the reader's IANA zone, in which <!date^…> is shown.
 */
export function blockKitRenderer(names: Record<string, string> = {}, zoneOf: () => string | undefined = () => 'UTC'): BlockKitRenderer {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

  /** Slack's text arrives with &amp; &lt; &gt; as the only entities; anything else raw is made inert. */
  function inertText(s: string): string {
    return s
      .replace(/&(?!(amp|lt|gt);)/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;');
  }

  function link(inner: string): string {
    // <https://x|label>, <@U123>, <#C123|name>, <!here>, <!subteam^S1|@team>
    const [target = '', label] = inner.split('|');
    const date = /^!date\^(\d+)\^([^^]*)/.exec(target);
    if (date) return `<time>${esc(slackDate(Number(date[1]), date[2] ?? '', label ?? ''))}</time>`;
    if (target.startsWith('@')) return `<span class="mention">@${esc(label ?? names[target.slice(1)] ?? target.slice(1))}</span>`;
    if (target.startsWith('#')) return `<span class="mention">#${esc(label ?? names[target.slice(1)] ?? target.slice(1))}</span>`;
    if (target.startsWith('!'))
      return `<span class="mention special">@${esc((label ?? target.slice(1)).replace(/^subteam\^\w+$/, 'team'))}</span>`;
    if (/^(https?:|mailto:)/.test(target)) {
      // The URL arrives with Slack's three entities; the href wants the real characters, escaped once.
      const url = target.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
      return `<a href="${esc(url)}" target="_blank" rel="noopener noreferrer">${inertText(label ?? target)}</a>`;
    }
    return inertText(`<${inner}>`);
  }

  /**
   * <!date^…> as Slack shows it: in the reader's zone, the one their Slack profile names (here, the
   * playground user's), never the zone of the machine that draws the page.
   */
  function slackDate(seconds: number, format: string, fallback: string): string {
    const d = new Date(seconds * 1000);
    if (Number.isNaN(d.getTime())) return fallback;
    const zone = zoneOf();
    const part = (options: Intl.DateTimeFormatOptions) =>
      new Intl.DateTimeFormat('en-GB', { ...options, ...(zone ? { timeZone: zone } : {}) }).format(d);
    const time = part({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    return format
      .replace('{time_secs}', part({ hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }))
      .replace('{time}', time)
      .replace(/\{date_short(_pretty)?\}/, part({ day: 'numeric', month: 'short' }))
      .replace(/\{[a-z_]+\}/g, '');
  }

  /**
   * What Slack does to mrkdwn that is not `verbatim`: bare URLs become links, #names and
   * @here/@channel/@everyone become mentions. Shown here too, so that text which should have
   * been verbatim (or rich text) looks as wrong as it would in Slack.
   */
  function autoParse(html: string): string {
    return html
      .replace(/(^|[\s(])(https?:\/\/[^\s<]+)/g, '$1<a href="$2" target="_blank" rel="noopener noreferrer">$2</a>')
      .replace(/(^|[\s(])#([a-z0-9][a-z0-9_-]*)/g, '$1<span class="mention">#$2</span>')
      .replace(/(^|[\s(])@(here|channel|everyone)\b/g, '$1<span class="mention special">@$2</span>');
  }

  function inline(text: string, verbatim = true): string {
    // Code first, so that nothing inside it is formatted.
    const parts = text.split(/(`[^`\n]+`)/);
    return parts
      .map((part, i) => {
        if (i % 2 === 1) return `<code>${inertText(part.slice(1, -1))}</code>`;
        const pieces = part.split(/<([^<>\n]+)>/);
        return pieces
          .map((piece, j) => {
            if (j % 2 === 1) return link(piece);
            const safe = inertText(piece);
            return (verbatim ? safe : autoParse(safe))
              .replace(/(^|[\s(])\*(?=\S)([^*\n]*?\S)\*(?=$|[\s).,!?:;])/g, '$1<b>$2</b>')
              .replace(/(^|[\s(])_(?=\S)([^_\n]*?\S)_(?=$|[\s).,!?:;])/g, '$1<i>$2</i>')
              .replace(/(^|[\s(])~(?=\S)([^~\n]*?\S)~(?=$|[\s).,!?:;])/g, '$1<s>$2</s>')
              .replace(/:([a-z0-9_+-]+):/g, (m, name: string) => EMOJI[name] ?? m);
          })
          .join('');
      })
      .join('');
  }

  const EMOJI: Record<string, string> = {
    tada: '🎉',
    warning: '⚠️',
    white_check_mark: '✅',
    checkered_flag: '🏁',
    red_circle: '🔴',
    large_blue_circle: '🔵',
    raised_hand: '✋',
    link: '🔗',
    key: '🔑',
    no_entry: '⛔',
    mag: '🔍',
    hourglass: '⌛',
    hourglass_flowing_sand: '⏳',
    electric_plug: '🔌',
    boom: '💥',
    x: '❌',
    eyes: '👀',
    hand: '✋',
    alarm_clock: '⏰',
    large_orange_circle: '🟠',
    pause_button: '⏸️',
    grey_question: '❔',
    arrows_counterclockwise: '🔄',
    see_no_evil: '🙈',
    information_source: 'ℹ️',
    ballot_box_with_check: '☑️',
    paperclip: '📎',
    floppy_disk: '💾',
    lock: '🔒',
    repeat: '🔁',
    white_circle: '⚪',
    large_yellow_circle: '🟡',
    large_green_circle: '🟢',
    heavy_check_mark: '✔️',
    question: '❓',
    bell: '🔔',
    calendar: '📆',
    clock1: '🕐',
    inbox_tray: '📥',
    lock_with_ink_pen: '🔏',
    stopwatch: '⏱️',
    crescent_moon: '🌙',
    no_bell: '🔕',
  };

  function mrkdwn(text: string, verbatim = true): string {
    const blocks = text.split(/```/);
    return blocks
      .map((chunk, i) => {
        if (i % 2 === 1) return `<pre>${inertText(chunk)}</pre>`;
        return chunk
          .split('\n')
          .map((line) =>
            line.startsWith('&gt; ') || line.startsWith('> ')
              ? `<blockquote>${inline(line.replace(/^(&gt;|>) /, ''), verbatim)}</blockquote>`
              : inline(line, verbatim),
          )
          .join('<br>');
      })
      .join('');
  }

  function plain(text: string): string {
    return esc(text).replace(/\n/g, '<br>');
  }

  function textObject(t: unknown): string {
    const o = t as { type?: string; text?: string; verbatim?: boolean; emoji?: boolean } | undefined;
    if (!o || typeof o.text !== 'string') return '';
    if (o.type === 'mrkdwn') return mrkdwn(o.text, o.verbatim === true);
    // plain_text: shown exactly, except that Slack turns :codes: into emoji unless emoji is false.
    return o.emoji === false ? plain(o.text) : plain(o.text).replace(/:([a-z0-9_+-]+):/g, (m, name: string) => EMOJI[name] ?? m);
  }

  /** A rich_text element: text exactly as given, with its styles; emoji, mentions, links and dates as Slack draws them. */
  function richElement(e: unknown): string {
    const el = e as {
      type?: string;
      text?: string;
      style?: { bold?: boolean; italic?: boolean; strike?: boolean; code?: boolean };
      name?: string;
      user_id?: string;
      channel_id?: string;
      usergroup_id?: string;
      url?: string;
      timestamp?: number;
      format?: string;
      fallback?: string;
      range?: string;
    };
    switch (el?.type) {
      case 'text': {
        let html = plain(el.text ?? '');
        if (el.style?.code) html = `<code>${html}</code>`;
        if (el.style?.bold) html = `<b>${html}</b>`;
        if (el.style?.italic) html = `<i>${html}</i>`;
        if (el.style?.strike) html = `<s>${html}</s>`;
        return html;
      }
      case 'emoji':
        return EMOJI[el.name ?? ''] ?? `:${esc(el.name ?? '')}:`;
      case 'user':
        return `<span class="mention">@${esc(names[el.user_id ?? ''] ?? el.user_id ?? '')}</span>`;
      case 'channel':
        return `<span class="mention">#${esc(names[el.channel_id ?? ''] ?? el.channel_id ?? '')}</span>`;
      case 'usergroup':
        return '<span class="mention special">@team</span>';
      case 'broadcast':
        return `<span class="mention special">@${esc(el.range ?? '')}</span>`;
      case 'link':
        return /^(https?:|mailto:)/.test(el.url ?? '')
          ? `<a href="${esc(el.url ?? '')}" target="_blank" rel="noopener noreferrer">${plain(el.text ?? el.url ?? '')}</a>`
          : plain(el.text ?? '');
      case 'date':
        return `<time>${esc(slackDate(el.timestamp ?? Number.NaN, el.format ?? '', el.fallback ?? ''))}</time>`;
      default:
        return raw(e);
    }
  }

  function richText(elements: unknown[]): string {
    return elements
      .map((s) => {
        const section = s as { type?: string; elements?: unknown[] };
        const inner = (section.elements ?? []).map(richElement).join('');
        if (section.type === 'rich_text_section') return `<div class="bk-rich">${inner}</div>`;
        if (section.type === 'rich_text_quote') return `<blockquote>${inner}</blockquote>`;
        if (section.type === 'rich_text_preformatted') return `<pre>${inner}</pre>`;
        return raw(s);
      })
      .join('');
  }

  function raw(value: unknown): string {
    return `<pre class="raw" title="not rendered by the playground">${esc(JSON.stringify(value, null, 2))}</pre>`;
  }

  /** An element as the app sends it: only what the playground draws is named. */
  type ElementJson = {
    type?: string;
    action_id?: string;
    value?: string;
    style?: string;
    text?: unknown;
    url?: string;
    image_url?: string;
    alt_text?: string;
    placeholder?: unknown;
    options?: Array<{ text?: unknown; value?: string }>;
    confirm?: unknown;
  };

  function button(el: ElementJson): string {
    const style = el.style === 'primary' || el.style === 'danger' ? ` ${el.style}` : '';
    // A confirm dialog goes with the button: the page shows it, as Slack does, before the click is sent.
    const confirm = el.confirm === undefined ? '' : ` data-confirm="${esc(JSON.stringify(el.confirm))}"`;
    const data = `data-action-id="${esc(el.action_id ?? '')}" data-value="${esc(el.value ?? '')}"${confirm}`;
    // A link button opens its page, as in Slack (which also tells the app of the click); the page says why one cannot be.
    if (el.url !== undefined && /^https?:\/\//i.test(el.url))
      return `<a class="bk-button${style}" ${data} href="${esc(el.url)}" target="_blank" rel="noopener noreferrer">${textObject(el.text)}</a>`;
    if (el.url !== undefined)
      return `<button type="button" class="bk-button${style}" ${data} disabled title="${esc(`The playground opens only http and https links; this one is ${el.url}`)}">${textObject(el.text)}</button>`;
    // type="button": inside a modal's form a button must not submit the form.
    return `<button type="button" class="bk-button${style}" ${data}>${textObject(el.text)}</button>`;
  }

  function staticSelect(el: ElementJson): string {
    const options = (el.options ?? []).map((o) => `<option value="${esc(o.value ?? '')}">${textObject(o.text)}</option>`).join('');
    return `<select class="bk-select" data-action-id="${esc(el.action_id ?? '')}"><option value="" selected disabled>${textObject(el.placeholder)}</option>${options}</select>`;
  }

  function element(e: unknown): string {
    const el = e as ElementJson;
    switch (el?.type) {
      case 'button':
        return button(el);
      case 'static_select':
        return staticSelect(el);
      case 'mrkdwn':
      case 'plain_text':
        return `<span>${textObject(el)}</span>`;
      case 'image':
        return `<img src="${esc(el.image_url ?? '')}" alt="${esc(el.alt_text ?? '')}">`;
      default:
        return raw(e);
    }
  }

  /** A block as the app sends it: only what the playground draws is named. */
  type BlockJson = {
    type?: string;
    text?: unknown;
    fields?: unknown[];
    accessory?: unknown;
    elements?: unknown[];
    label?: unknown;
    hint?: unknown;
    element?: { type?: string; action_id?: string; multiline?: boolean; placeholder?: unknown; initial_value?: string };
    block_id?: string;
    optional?: boolean;
  };

  function section(bl: BlockJson): string {
    const fields = Array.isArray(bl.fields)
      ? `<div class="bk-fields">${bl.fields.map((f) => `<div>${textObject(f)}</div>`).join('')}</div>`
      : '';
    const accessory = bl.accessory ? `<div class="bk-accessory">${element(bl.accessory)}</div>` : '';
    return `<div class="bk-section"><div class="bk-text">${textObject(bl.text)}${fields}</div>${accessory}</div>`;
  }

  /** An input block: a plain text field, named block|action as the page's form submits it. */
  function input(bl: BlockJson): string {
    const field = bl.element;
    if (field?.type !== 'plain_text_input') return raw(bl);
    const name = `${esc(bl.block_id ?? '')}|${esc(field.action_id ?? '')}`;
    const value = esc(field.initial_value ?? '');
    const control = field.multiline
      ? `<textarea name="${name}">${value}</textarea>`
      : `<input name="${name}" value="${value}" autocomplete="off">`;
    const hint = bl.hint ? `<small class="bk-hint">${textObject(bl.hint)}</small>` : '';
    return `<label class="bk-input"><span>${textObject(bl.label)}${bl.optional ? ' <em>(optional)</em>' : ''}</span>${control}${hint}</label>`;
  }

  function block(b: unknown): string {
    const bl = b as BlockJson;
    switch (bl?.type) {
      case 'header':
        return `<div class="bk-header">${textObject(bl.text)}</div>`;
      case 'divider':
        return '<hr class="bk-divider">';
      case 'section':
        return section(bl);
      case 'rich_text':
        return `<div class="bk-section"><div class="bk-text">${richText(bl.elements ?? [])}</div></div>`;
      case 'context':
        return `<div class="bk-context">${(bl.elements ?? []).map(element).join(' ')}</div>`;
      case 'actions':
        return `<div class="bk-actions" data-block-id="${esc(bl.block_id ?? '')}">${(bl.elements ?? []).map(element).join('')}</div>`;
      case 'input':
        return input(bl);
      default:
        return raw(b);
    }
  }

  return { mrkdwn, plain, text: textObject, blocks: (blocks) => blocks.map(block).join('') };
}
