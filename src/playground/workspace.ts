/**
 * What the Slack stand-in holds, as a workspace would: the channel's messages (ephemeral ones
 * marked for their one reader), each user's Home tab and stack of modals, and the response_urls and
 * trigger ids handed to the app. The Web API (web-api.ts), what the page's user does
 * (interactions.ts) and the page's HTTP (server.ts) all read and change this one.
 */

import { randomBytes } from 'node:crypto';
import type { Logger } from '../runtime/logger.js';

export interface PlaygroundUser {
  id: string;
  name: string;
  role: string;
  tz: string;
}

export interface PlaygroundMessage {
  id: number;
  ts: string;
  channel: string;
  /** 'bot' or the user who typed a command. */
  author: string;
  text: string;
  blocks: unknown[];
  /** Seen only by this user, as Slack's ephemeral messages are. */
  ephemeralTo?: string;
  /** A slash command as typed, shown to the one who typed it. */
  typed?: boolean;
}

export interface ResponseTarget {
  channel: string;
  userId: string;
  /** The message a button came from: replace_original and delete_original act on it. */
  messageId?: number;
}

/** A modal open for a user; views.update with a hash fails once the view has changed since. */
export interface OpenModal {
  id: string;
  view: unknown;
  hash: string;
}

export interface WorkspaceOptions {
  users: readonly PlaygroundUser[];
  teamId: string;
  channel: { id: string; name: string };
  logger: Logger;
  /** The app's clock: message timestamps and signatures are on it. */
  now?: (() => Date) | undefined;
}

const MAX_MESSAGES = 300;

export class Workspace {
  readonly users: readonly PlaygroundUser[];
  readonly teamId: string;
  readonly channel: { id: string; name: string };
  readonly logger: Logger;
  readonly messages: PlaygroundMessage[] = [];
  readonly homes = new Map<string, unknown>();
  /** Each user's open modals, the one on top last: views.push stacks one over another, as in Slack. */
  readonly modals = new Map<string, OpenModal[]>();
  /** Trigger ids handed to the app, and whose: each opens one modal, once. */
  readonly triggers = new Map<string, string>();
  /** Where response_urls point: this server's address, once it listens. */
  base = '';
  /** Bumped on every change, so that the page redraws only when something changed. */
  version = 0;
  readonly #targets = new Map<string, ResponseTarget>();
  readonly #now: () => Date;
  #nextId = 0;

  constructor(options: WorkspaceOptions) {
    this.users = options.users;
    this.teamId = options.teamId;
    this.channel = options.channel;
    this.logger = options.logger;
    this.#now = options.now ?? (() => new Date());
  }

  nowMs(): number {
    return this.#now().getTime();
  }

  changed(): void {
    this.version++;
  }

  user(id: unknown): PlaygroundUser | undefined {
    return this.users.find((u) => u.id === id);
  }

  /** A message timestamp as Slack writes them, unique here: it advances the id every message gets. */
  ts(): string {
    return `${Math.floor(this.nowMs() / 1000)}.${String(++this.#nextId).padStart(6, '0')}`;
  }

  add(m: Omit<PlaygroundMessage, 'id' | 'ts'>): PlaygroundMessage {
    const stamp = this.ts(); // advances nextId, which then doubles as the message's id
    const message = { ...m, id: this.#nextId, ts: stamp };
    this.messages.push(message);
    if (this.messages.length > MAX_MESSAGES) this.messages.splice(0, this.messages.length - MAX_MESSAGES);
    this.changed();
    return message;
  }

  /** A message from Slackbot to one user, as Slack tells someone that something failed. */
  slackbotTells(userId: string | undefined, text: string): void {
    this.add({ channel: this.channel.id, author: 'slackbot', text, blocks: [], ...(userId ? { ephemeralTo: userId } : {}) });
  }

  newResponseUrl(target: ResponseTarget): string {
    const id = randomBytes(9).toString('base64url');
    this.#targets.set(id, target);
    return `${this.base}/response/${id}`;
  }

  responseTarget(id: string): ResponseTarget | undefined {
    return this.#targets.get(id);
  }

  newTrigger(userId: string): string {
    const id = `${this.nowMs()}.${randomBytes(6).toString('hex')}`;
    this.triggers.set(id, userId);
    return id;
  }

  topModal(userId: string): OpenModal | undefined {
    return this.modals.get(userId)?.at(-1);
  }

  /** Closes the modal on top; one pushed over another goes back to it, as in Slack. */
  closeTop(userId: string): void {
    const stack = this.modals.get(userId);
    stack?.pop();
    if (stack?.length === 0) this.modals.delete(userId);
    this.changed();
  }

  /** What the page shows one user: the messages they may see, their Home, the modal on top. */
  seenBy(userId: string) {
    return {
      version: this.version,
      messages: this.messages.filter((m) => m.ephemeralTo === undefined || m.ephemeralTo === userId),
      home: this.homes.get(userId) ?? null,
      modal: this.topModal(userId)?.view ?? null,
      modals: this.modals.get(userId)?.length ?? 0,
    };
  }
}
