/**
 * What a person reads in a message, as one string: our emphasis written as mrkdwn would write it
 * (*bold*, `code`, :emoji:), mentions as <@U…>, links as <url|text>, buttons as [text]. Tests
 * assert on this rather than on Block Kit's JSON, so that moving words between rich text,
 * plain text and mrkdwn does not change what a test means.
 */

type Json = Record<string, unknown>;

function rich(element: Json): string {
  switch (element.type) {
    case 'text': {
      const style = (element.style ?? {}) as { bold?: boolean; italic?: boolean; code?: boolean; strike?: boolean };
      let text = String(element.text);
      if (style.code) text = `\`${text}\``;
      if (style.bold) text = `*${text}*`;
      if (style.italic) text = `_${text}_`;
      if (style.strike) text = `~${text}~`;
      return text;
    }
    case 'emoji':
      return `:${String(element.name)}:`;
    case 'user':
      return `<@${String(element.user_id)}>`;
    case 'channel':
      return `<#${String(element.channel_id)}>`;
    case 'usergroup':
      return `<!subteam^${String(element.usergroup_id)}>`;
    case 'link':
      return `<${String(element.url)}|${String(element.text ?? element.url)}>`;
    case 'date':
      return String(element.fallback ?? element.timestamp);
    default:
      return '';
  }
}

function textObject(t: unknown): string {
  const o = t as { text?: unknown } | undefined;
  return typeof o?.text === 'string' ? o.text : '';
}

function element(e: unknown): string {
  const el = e as Json;
  if (el.type === 'button') return `[${textObject(el.text)}]`;
  if (el.type === 'mrkdwn' || el.type === 'plain_text') return textObject(el);
  if (el.type === 'overflow' || el.type === 'static_select')
    return `[${((el.options as Json[] | undefined) ?? []).map((o) => textObject(o.text)).join(' | ')}]`;
  return '';
}

function block(b: unknown): string {
  const bl = b as Json;
  switch (bl.type) {
    case 'header':
      return textObject(bl.text);
    case 'section':
      return [
        textObject(bl.text),
        ...((bl.fields as unknown[] | undefined) ?? []).map(textObject),
        bl.accessory ? element(bl.accessory) : '',
      ]
        .filter((x) => x !== '')
        .join('\n');
    case 'context':
      return ((bl.elements as unknown[] | undefined) ?? []).map(element).join(' ');
    case 'actions':
      return ((bl.elements as unknown[] | undefined) ?? []).map(element).join(' ');
    case 'rich_text':
      return ((bl.elements as Json[] | undefined) ?? [])
        .map((s) => ((s.elements as Json[] | undefined) ?? []).map(rich).join(''))
        .join('\n');
    case 'input':
      return textObject(bl.label);
    default:
      return '';
  }
}

export function visible(blocks: readonly unknown[] | undefined): string {
  return (blocks ?? []).map(block).join('\n');
}

/** Every mrkdwn text in the blocks: where Slack reads markup, so where no one else's text may be. */
export function mrkdwnTexts(blocks: readonly unknown[] | undefined): string[] {
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return void v.forEach(walk);
    if (typeof v !== 'object' || v === null) return;
    const o = v as Json;
    if (o.type === 'mrkdwn' && typeof o.text === 'string') found.push(o.text);
    for (const child of Object.values(o)) walk(child);
  };
  walk(blocks);
  return found;
}

/** Whether this text is shown exactly somewhere: a rich text `text` element or a plain_text object holding it whole. */
export function shownExactly(blocks: readonly unknown[] | undefined, text: string): boolean {
  let found = false;
  const walk = (v: unknown): void => {
    if (found || typeof v !== 'object' || v === null) return;
    if (Array.isArray(v)) return void v.forEach(walk);
    const o = v as Json;
    if ((o.type === 'text' || o.type === 'plain_text') && typeof o.text === 'string' && o.text.includes(text)) found = true;
    for (const child of Object.values(o)) walk(child);
  };
  walk(blocks);
  return found;
}
