/**
 * One middleware before every listener: every line logged while serving a request, after the ack
 * too, carries its id, user and name; the request is counted in the metrics once its work has
 * ended; and a command past the in-flight limit or the user's rate limit is answered kindly at
 * once, with nothing else done.
 */

import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { RateLimiter } from '../rate-limit.js';

/** What a Slack request is, for logs and metrics: its type and the command, action, view or event it names. */
export function describeRequest(body: Record<string, unknown>): { type: string; name: string; user: string | undefined } {
  const b = body as {
    command?: string;
    user_id?: string;
    user?: { id?: string };
    type?: string;
    actions?: Array<{ action_id?: string }>;
    view?: { callback_id?: string };
    event?: { type?: string; user?: string };
  };
  const user = b.user_id ?? b.user?.id ?? b.event?.user;
  if (b.command) return { type: 'command', name: b.command, user };
  if (b.type === 'block_actions') return { type: 'action', name: b.actions?.[0]?.action_id ?? 'unknown', user };
  if (b.type === 'view_submission' || b.type === 'view_closed') return { type: 'view', name: b.view?.callback_id ?? 'unknown', user };
  if (b.event) return { type: 'event', name: b.event.type ?? 'unknown', user };
  return { type: b.type ?? 'unknown', name: 'unknown', user };
}

export function requestMiddleware(deps: SlackDeps): Middleware<AnyMiddlewareArgs> {
  const limiter = new RateLimiter(deps.commandsPerMinute);
  return async (args) => {
    const body = args.body as Record<string, unknown> & { command?: string; user_id?: string };
    const { type, name, user } = describeRequest(body);
    const fields = { request: deps.newId().slice(0, 12), ...(user ? { user } : {}), [type === 'command' ? 'slash' : type]: name };
    await deps.logger.withContext(fields, () =>
      deps.metrics.track(type, name, async () => {
        const ack = (args as unknown as { ack?: (r: unknown) => Promise<void> }).ack;
        if (body.command !== undefined && ack !== undefined && deps.background.size >= deps.maxInFlight) {
          deps.metrics.outcome('busy');
          deps.logger.warn({ inFlight: deps.background.size }, 'command turned away: too much work in flight');
          const text =
            'countersign is very busy right now and did not take this command, so that it can still answer the ones it has. Please try again in a minute.';
          return void (await ack({ response_type: 'ephemeral', text }));
        }
        if (body.command !== undefined && body.user_id !== undefined && ack !== undefined) {
          const waitMs = limiter.take(body.user_id, deps.now().getTime());
          if (waitMs > 0) {
            deps.metrics.outcome('rate_limited');
            deps.logger.info({ waitMs }, 'command refused: rate limit');
            const text = `Easy there: countersign takes up to ${deps.commandsPerMinute} commands a minute from one person, so that the Command Service is not swamped. Try again in ${Math.ceil(waitMs / 1000)} s.`;
            return void (await ack({ response_type: 'ephemeral', text }));
          }
        }
        await args.next();
      }),
    );
  };
}
