/**
 * What the Slack adapter needs: the deps of every use case it calls, plus what only a Slack
 * request has (the time zone Slack knows, work after the ack, response_url, the limits). Built
 * once in main.ts; each request gets its own copy (listeners/middleware.ts) whose logger,
 * metrics, background work and service client are the request's.
 */

import type { DecideDeps } from '../approvals/decide.js';
import type { ArrivalOutbox } from '../arrivals/ports.js';
import type { CollectDeps } from '../collections/ports.js';
import type { TimeZones } from '../deps.js';
import type { ReminderDeps } from '../reminders/remind.js';
import type { ApprovalLinks } from '../render/approvals.js';
import type { BackgroundWork } from '../runtime/background.js';
import type { ShownMemory } from './surfaces/shown.js';
import type { Responder } from './web-api/responder.js';

export interface SlackDeps extends CollectDeps, ReminderDeps, DecideDeps {
  timeZones: TimeZones;
  /** Work that runs after the ack; tracked so that shutdown can wait for it. */
  background: BackgroundWork;
  /** Posts answers to a request's response_url. */
  responder: Responder;
  /** What this instance last drew (pages, Details' items, Home): a decision redraws from it. */
  shown: ShownMemory;
  /** COMMAND_SERVICE_TIME_ZONE: the zone the service writes its times in; undefined when not known. */
  serviceTimeZone: string | undefined;
  /** APPROVAL_URL_TEMPLATE: "Open" buttons on approvals when set. */
  approvalLinks: ApprovalLinks | undefined;
  /** Arrival messages: a decision from Slack redraws every one that lists the approval. */
  arrivals: ArrivalOutbox;
  /** NOTIFY_INTERVAL: how often approvers' lists are checked for arrivals; undefined when arrival messages are off here. */
  notifyIntervalMs: number | undefined;
  /** Slash commands one user may send per minute (on this instance). */
  commandsPerMinute: number;
  /**
   * Commands still being worked on past which new ones are turned away at once: beyond it the
   * instance only builds a backlog (answers a minute late, memory without bound), while another
   * instance, or a moment later, would do better.
   */
  maxInFlight: number;
}
