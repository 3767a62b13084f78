/**
 * Which listener a Slack request reaches: commands by name, block actions by action id, modal
 * submissions by callback id, events by type. The request middleware calls it directly rather than
 * through a Bolt listener per surface: Bolt runs every listener's chain of matching middleware for
 * every request, and that machinery was a few percent of the CPU an answered command costs.
 */

import type { SlackDeps } from '../deps.js';

/** A listener, made for one request from that request's deps, called with the arguments Bolt gives middleware. */
export type Listener = (deps: SlackDeps) => (args: never) => Promise<void>;

export type Handlers = Map<string, Listener>;

export interface Routes {
  commands: Handlers;
  actions: Handlers;
  /** view_submission only, as Bolt's app.view(callbackId) matches by default. */
  views: Handlers;
  events: Handlers;
}

/** The listener for this request, or undefined when none takes it (it is then left unacknowledged, as Bolt leaves it). */
export function routeOf(routes: Routes, body: Record<string, unknown>): Listener | undefined {
  const b = body as {
    command?: unknown;
    type?: unknown;
    actions?: Array<{ action_id?: unknown }>;
    view?: { callback_id?: unknown };
    event?: { type?: unknown };
  };
  const key = (value: unknown) => (typeof value === 'string' ? value : '');
  if (typeof b.command === 'string') return routes.commands.get(b.command);
  // Slack sends one action per block_actions request; Bolt, too, takes the first.
  if (b.type === 'block_actions') return routes.actions.get(key(b.actions?.[0]?.action_id));
  if (b.type === 'view_submission') return routes.views.get(key(b.view?.callback_id));
  if (b.type === 'event_callback') return routes.events.get(key(b.event?.type));
  return undefined;
}
