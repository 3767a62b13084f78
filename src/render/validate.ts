/**
 * One Block Kit validator of ours, for every message, modal and Home view the app can produce:
 * required fields, lengths at least 1 and at most Slack's documented maxima, counts, unique ids.
 * Slack refuses a payload that breaks any of these (invalid_blocks), so the tests run every
 * renderer through it over generated service data, and the local playground refuses as Slack does.
 * Pure: a value in, the problems out, each with where it is.
 */

import { LIMITS } from './blocks.js';

type Json = Record<string, unknown>;

const RICH_CONTAINERS = ['rich_text_section', 'rich_text_quote', 'rich_text_preformatted', 'rich_text_list'];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

class Checker {
  readonly problems: string[] = [];

  fail(path: string, problem: string): void {
    this.problems.push(`${path}: ${problem}`);
  }

  string(path: string, value: unknown, max: number, min = 1): value is string {
    if (typeof value !== 'string') {
      this.fail(path, 'is required and must be a string');
      return false;
    }
    if (value.length < min) this.fail(path, `is empty (at least ${min} character${min === 1 ? '' : 's'})`);
    if (value.length > max) this.fail(path, `has ${value.length} characters (at most ${max})`);
    return true;
  }

  optionalString(path: string, value: unknown, max: number): void {
    if (value !== undefined) this.string(path, value, max);
  }

  text(path: string, value: unknown, max: number, only?: 'plain_text'): void {
    if (!isObject(value)) return void this.fail(path, 'must be a text object');
    if (value.type !== 'plain_text' && value.type !== 'mrkdwn') return void this.fail(`${path}.type`, 'must be plain_text or mrkdwn');
    if (only && value.type !== only) this.fail(`${path}.type`, `must be ${only}`);
    this.string(`${path}.text`, value.text, max);
    if (value.type === 'mrkdwn' && 'emoji' in value) this.fail(`${path}.emoji`, 'is for plain_text only');
    if (value.type === 'plain_text' && 'verbatim' in value) this.fail(`${path}.verbatim`, 'is for mrkdwn only');
  }

  url(path: string, value: unknown): void {
    if (!this.string(path, value, LIMITS.buttonUrl)) return;
    if (!/^(https?:\/\/|mailto:)/.test(value)) this.fail(path, 'must be an http(s) or mailto URL');
  }

  confirm(path: string, value: unknown): void {
    if (!isObject(value)) return void this.fail(path, 'must be a confirmation dialog');
    this.text(`${path}.title`, value.title, LIMITS.confirmTitle, 'plain_text');
    this.text(`${path}.text`, value.text, LIMITS.confirmText);
    this.text(`${path}.confirm`, value.confirm, LIMITS.confirmButton, 'plain_text');
    this.text(`${path}.deny`, value.deny, LIMITS.confirmButton, 'plain_text');
  }

  element(path: string, value: unknown, actionIds: Set<string>): void {
    if (!isObject(value)) return void this.fail(path, 'must be an element');
    if (value.type === 'image') {
      this.url(`${path}.image_url`, value.image_url);
      this.string(`${path}.alt_text`, value.alt_text, 2000);
      return;
    }
    if (value.type !== 'button' && value.type !== 'overflow' && value.type !== 'static_select')
      return void this.fail(`${path}.type`, `${String(value.type)} is not an element this app sends`);
    if (this.string(`${path}.action_id`, value.action_id, LIMITS.actionId)) {
      if (actionIds.has(value.action_id)) this.fail(`${path}.action_id`, `${value.action_id} is used twice in one block`);
      actionIds.add(value.action_id);
    }
    if (value.confirm !== undefined) this.confirm(`${path}.confirm`, value.confirm);
    if (value.type === 'button') {
      this.text(`${path}.text`, value.text, LIMITS.buttonText, 'plain_text');
      this.optionalString(`${path}.value`, value.value, LIMITS.buttonValue);
      if (value.url !== undefined) this.url(`${path}.url`, value.url);
      if (value.style !== undefined && value.style !== 'primary' && value.style !== 'danger')
        this.fail(`${path}.style`, 'must be primary or danger');
      return;
    }
    const options = value.options;
    const max = value.type === 'overflow' ? 5 : 100;
    if (!Array.isArray(options) || options.length < (value.type === 'overflow' ? 1 : 1) || options.length > max)
      return void this.fail(`${path}.options`, `must hold 1 to ${max} options`);
    if (value.type === 'static_select') this.text(`${path}.placeholder`, value.placeholder, 150, 'plain_text');
    for (const [i, o] of options.entries()) {
      if (!isObject(o)) {
        this.fail(`${path}.options[${i}]`, 'must be an option');
        continue;
      }
      this.text(`${path}.options[${i}].text`, o.text, 75, 'plain_text');
      this.string(`${path}.options[${i}].value`, o.value, 150);
    }
  }

  richElement(path: string, value: unknown): number {
    if (!isObject(value)) {
      this.fail(path, 'must be a rich text element');
      return 0;
    }
    switch (value.type) {
      case 'text':
        this.string(`${path}.text`, value.text, LIMITS.richTextChars);
        return typeof value.text === 'string' ? value.text.length : 0;
      case 'emoji':
        this.string(`${path}.name`, value.name, 100);
        return 1;
      case 'user':
        if (typeof value.user_id !== 'string' || !/^[UWB][A-Z0-9]+$/.test(value.user_id)) this.fail(`${path}.user_id`, 'must be a user id');
        return 1;
      case 'channel':
        if (typeof value.channel_id !== 'string' || !/^[CGD][A-Z0-9]+$/.test(value.channel_id))
          this.fail(`${path}.channel_id`, 'must be a channel id');
        return 1;
      case 'usergroup':
        if (typeof value.usergroup_id !== 'string' || !/^S[A-Z0-9]+$/.test(value.usergroup_id))
          this.fail(`${path}.usergroup_id`, 'must be a user group id');
        return 1;
      case 'link':
        this.url(`${path}.url`, value.url);
        if (value.text !== undefined) this.string(`${path}.text`, value.text, LIMITS.richTextChars);
        return typeof value.text === 'string' ? value.text.length : 1;
      case 'date':
        if (!Number.isInteger(value.timestamp)) this.fail(`${path}.timestamp`, 'must be whole seconds');
        this.string(`${path}.format`, value.format, 200);
        this.optionalString(`${path}.fallback`, value.fallback, 200);
        return 1;
      default:
        this.fail(`${path}.type`, `${String(value.type)} is not a rich text element this app sends`);
        return 0;
    }
  }

  block(path: string, value: unknown, blockIds: Set<string>, surface: 'message' | 'modal' | 'home'): void {
    if (!isObject(value)) return void this.fail(path, 'must be a block');
    if (value.block_id !== undefined && this.string(`${path}.block_id`, value.block_id, LIMITS.blockId)) {
      if (blockIds.has(value.block_id as string)) this.fail(`${path}.block_id`, `${String(value.block_id)} is used twice`);
      blockIds.add(value.block_id as string);
    }
    const actionIds = new Set<string>();
    switch (value.type) {
      case 'header':
        this.text(`${path}.text`, value.text, LIMITS.headerText, 'plain_text');
        return;
      case 'divider':
        return;
      case 'section': {
        if (value.text === undefined && value.fields === undefined) return void this.fail(path, 'needs text or fields');
        if (value.text !== undefined) this.text(`${path}.text`, value.text, LIMITS.sectionText);
        if (value.fields !== undefined) {
          if (!Array.isArray(value.fields) || value.fields.length < 1 || value.fields.length > LIMITS.sectionFields)
            this.fail(`${path}.fields`, `must hold 1 to ${LIMITS.sectionFields} text objects`);
          else for (const [i, f] of value.fields.entries()) this.text(`${path}.fields[${i}]`, f, LIMITS.fieldText);
        }
        if (value.accessory !== undefined) this.element(`${path}.accessory`, value.accessory, actionIds);
        return;
      }
      case 'context': {
        const elements = value.elements;
        if (!Array.isArray(elements) || elements.length < 1 || elements.length > LIMITS.contextElements)
          return void this.fail(`${path}.elements`, `must hold 1 to ${LIMITS.contextElements} elements`);
        for (const [i, e] of elements.entries()) {
          if (isObject(e) && e.type === 'image') this.element(`${path}.elements[${i}]`, e, actionIds);
          else this.text(`${path}.elements[${i}]`, e, LIMITS.sectionText);
        }
        return;
      }
      case 'actions': {
        const elements = value.elements;
        if (!Array.isArray(elements) || elements.length < 1 || elements.length > LIMITS.actionsElements)
          return void this.fail(`${path}.elements`, `must hold 1 to ${LIMITS.actionsElements} elements`);
        for (const [i, e] of elements.entries()) this.element(`${path}.elements[${i}]`, e, actionIds);
        return;
      }
      case 'rich_text': {
        const sections = value.elements;
        if (!Array.isArray(sections) || sections.length < 1) return void this.fail(`${path}.elements`, 'must hold at least one element');
        let chars = 0;
        for (const [i, s] of sections.entries()) {
          const at = `${path}.elements[${i}]`;
          if (!isObject(s) || !RICH_CONTAINERS.includes(String(s.type))) {
            this.fail(at, 'must be a rich text section, quote, list or preformatted block');
          } else if (!Array.isArray(s.elements) || s.elements.length < 1) {
            this.fail(`${at}.elements`, 'must hold at least one element');
          } else if (s.type !== 'rich_text_list') {
            for (const [j, e] of s.elements.entries()) chars += this.richElement(`${at}.elements[${j}]`, e);
          }
        }
        if (chars > LIMITS.richTextChars) this.fail(path, `holds ${chars} characters (at most ${LIMITS.richTextChars})`);
        return;
      }
      case 'input': {
        if (surface !== 'modal') this.fail(path, 'input blocks belong in modals');
        this.text(`${path}.label`, value.label, LIMITS.inputLabel, 'plain_text');
        if (value.hint !== undefined) this.text(`${path}.hint`, value.hint, LIMITS.inputHint, 'plain_text');
        const element = value.element;
        if (!isObject(element) || element.type !== 'plain_text_input')
          return void this.fail(`${path}.element`, 'must be a plain_text_input');
        this.string(`${path}.element.action_id`, element.action_id, LIMITS.actionId);
        if (element.initial_value !== undefined) this.string(`${path}.element.initial_value`, element.initial_value, 3000, 0);
        return;
      }
      default:
        this.fail(`${path}.type`, `${String(value.type)} is not a block this app sends`);
    }
  }

  blocks(path: string, value: unknown, max: number, surface: 'message' | 'modal' | 'home'): void {
    if (!Array.isArray(value)) return void this.fail(path, 'must be a list of blocks');
    if (value.length > max) this.fail(path, `holds ${value.length} blocks (at most ${max})`);
    const blockIds = new Set<string>();
    for (const [i, b] of value.entries()) this.block(`${path}[${i}]`, b, blockIds, surface);
  }
}

/** A message (chat.postMessage, chat.update, response_url): its fallback text and its blocks. */
export function messageProblems(message: unknown): string[] {
  const c = new Checker();
  if (!isObject(message)) return ['message: must be an object'];
  // Slack takes up to 40,000 characters; the fallback must say something.
  c.string('text', message.text, 40_000);
  if (message.blocks !== undefined) c.blocks('blocks', message.blocks, LIMITS.blocksPerMessage, 'message');
  return c.problems;
}

/** A modal (views.open, views.update, response_action: update) or a Home tab (views.publish). */
export function viewProblems(view: unknown): string[] {
  const c = new Checker();
  if (!isObject(view)) return ['view: must be an object'];
  if (view.type === 'modal') {
    c.text('title', view.title, LIMITS.viewTitle, 'plain_text');
    if (view.submit !== undefined) c.text('submit', view.submit, LIMITS.viewButton, 'plain_text');
    if (view.close !== undefined) c.text('close', view.close, LIMITS.viewButton, 'plain_text');
    if (view.submit === undefined && Array.isArray(view.blocks) && view.blocks.some((b) => isObject(b) && b.type === 'input'))
      c.fail('submit', 'is required when the modal has inputs');
  } else if (view.type !== 'home') {
    c.fail('type', 'must be modal or home');
  }
  c.optionalString('callback_id', view.callback_id, LIMITS.callbackId);
  if (view.private_metadata !== undefined) c.string('private_metadata', view.private_metadata, LIMITS.privateMetadata, 0);
  c.blocks('blocks', view.blocks, LIMITS.blocksPerView, view.type === 'home' ? 'home' : 'modal');
  return c.problems;
}
