/**
 * One middleware for every request: it gives the request its own deps (requestDeps), whose
 * logger writes the request's id, user and name on every line, after the ack too, and whose metrics
 * count the request once its work has ended; a command, click or modal submission past the
 * in-flight limit or the user's rate limit is acked and answered kindly at once, with nothing else
 * done; any other goes to its handler (a route of listeners/).
 */

import type { AllMiddlewareArgs, AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { keepReadCommand, type ReadCommand, readCommand } from '../handlers/commands/read.js';
import { UserRateLimit } from './user-limits.js';

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

/** What is counted against a user's limit, and how a refusal reaches them. */
type Counted = 'command' | 'click' | 'submission';

/**
 * Only the forms of a command that reach the service count: the limit protects the service, so
 * help, whoami, history, login, reminders and a typing mistake do not. What a command is does not
 * depend on the day its dates are counted from: the text as read says it.
 */
function reachesService(read: ReadCommand | undefined): boolean {
  if (read?.command === '/approvals') return ['query', 'logout'].includes(read.form.kind);
  if (read?.command === '/collect') return ['run', 'logout'].includes(read.form.kind);
  return true;
}

/** What the request counts as; a command's text is read here, once, and left in the context for its handler. */
function countedKind(body: Record<string, unknown>, context: Record<string, unknown>): Counted | undefined {
  if (typeof body.command === 'string') {
    const read = readCommand(body.command, String(body.text ?? ''));
    if (read !== undefined) keepReadCommand(context, read);
    return reachesService(read) ? 'command' : undefined;
  }
  if (body.type === 'block_actions') return 'click';
  if (body.type === 'view_submission') return 'submission';
  return undefined;
}

/** Where the middleware leaves the request's deps for its handler. */
const REQUEST_DEPS = 'countersignDeps';

/** The request's own deps, as the middleware made them; the app's when there are none (a handler called on its own). */
export function requestDeps(context: Record<string, unknown>, deps: SlackDeps): SlackDeps {
  return (context[REQUEST_DEPS] as SlackDeps | undefined) ?? deps;
}

/**
 * Where one kind of request goes: the work its handler does, or undefined when the request is not
 * of that kind. The handlers sit behind the one middleware, which routes, not behind Bolt
 * listeners: Bolt copies and runs the filters of every listener it has for every request it gets.
 */
export type Route = (args: AnyMiddlewareArgs & AllMiddlewareArgs) => Promise<void> | undefined;

/**
 * A route to one of `handlers` by the name `nameOf` reads off the request (a command's, an action
 * id, a callback id); undefined from `nameOf`: not this route's kind. A name of its kind with no
 * handler is taken and nothing done, as a Bolt listener with no match for it would.
 */
export function routeByName<A>(
  deps: SlackDeps,
  handlers: ReadonlyMap<string, (deps: SlackDeps) => (args: A) => Promise<void>>,
  nameOf: (args: AnyMiddlewareArgs & AllMiddlewareArgs) => string | undefined,
): Route {
  return (args) => {
    const name = nameOf(args);
    if (name === undefined) return undefined;
    const make = handlers.get(name);
    return make === undefined ? Promise.resolve() : make(requestDeps(args.context, deps))(args as unknown as A);
  };
}

/** The request to the first route that takes it; one that none takes (an event not subscribed to) goes on to Bolt, which has nothing more for it. */
function routed(routes: readonly Route[], args: AnyMiddlewareArgs & AllMiddlewareArgs): Promise<void> {
  for (const route of routes) {
    const work = route(args);
    if (work !== undefined) return work;
  }
  return args.next();
}

/**
 * The one middleware: the request's deps and limits, then its handler, by route (each middleware
 * Bolt runs costs a copy of its arguments, with keys added, which V8 makes slowly).
 */
export function requestMiddleware(deps: SlackDeps, routes: readonly Route[] = []): Middleware<AnyMiddlewareArgs> {
  // Commands, and clicks with submissions, each have their own bucket of the same size: paging
  // through a long list does not use up the commands a minute, nor the other way round.
  const commands = new UserRateLimit(deps.commandsPerMinute);
  const interactions = new UserRateLimit(deps.commandsPerMinute);
  return async (args) => {
    const body = args.body as Record<string, unknown> & { command?: string; user_id?: string };
    const { type, name, user } = describeRequest(body);
    const fields = { request: deps.newId().slice(0, 12), ...(user ? { user } : {}), [type === 'command' ? 'slash' : type]: name };
    const metrics = deps.metrics.forRequest(type, name);
    const logger = deps.logger.child(fields);
    const request: SlackDeps = {
      ...deps,
      requestId: fields.request,
      logger,
      metrics,
      background: deps.background.forRequest(logger, metrics),
      service: deps.service.withLogFields(fields),
    };
    (args.context as Record<string, unknown>)[REQUEST_DEPS] = request;
    let failed = true;
    try {
      const ack = (args as unknown as { ack?: (r?: unknown) => Promise<void> }).ack;
      const kind = countedKind(body, args.context as Record<string, unknown>);
      if (kind !== undefined && ack !== undefined) {
        if (request.background.size >= deps.maxInFlight) {
          metrics.outcome('busy');
          logger.warn({ inFlight: request.background.size }, `${kind} turned away: too much work in flight`);
          const text = `countersign is very busy right now and did not take this ${kind}, so that it can still answer the ones it has. Please try again in a minute.`;
          await refuse(request, body, kind, ack, text);
          failed = false;
          return;
        }
        const limiter = kind === 'command' ? commands : interactions;
        const waitMs = user === undefined ? 0 : limiter.take(user, deps.now().getTime());
        if (waitMs > 0) {
          metrics.outcome('rate_limited');
          logger.info({ waitMs }, `${kind} refused: rate limit`);
          const what = kind === 'command' ? 'commands' : 'clicks and form submissions';
          const text = `Easy there: countersign takes up to ${deps.commandsPerMinute} ${what} a minute from one person, so that the Command Service is not swamped. Try again in ${Math.ceil(waitMs / 1000)} s.`;
          await refuse(request, body, kind, ack, text);
          failed = false;
          return;
        }
      }
      await routed(routes, args);
      failed = false;
    } finally {
      metrics.end(failed);
    }
  };
}

/**
 * Acks a request that will not be worked on, and tells the user why, where they will see it: a
 * command's ack carries the message; a click's ack cannot, so it goes to its response_url; a
 * modal keeps its input and shows the message on its first field.
 */
async function refuse(
  deps: SlackDeps,
  body: Record<string, unknown>,
  kind: Counted,
  ack: (response?: unknown) => Promise<void>,
  text: string,
): Promise<void> {
  if (kind === 'command') return ack({ response_type: 'ephemeral', text });
  if (kind === 'submission') {
    const values = (body as { view?: { state?: { values?: Record<string, unknown> } } }).view?.state?.values ?? {};
    const [block] = Object.keys(values);
    if (block !== undefined) return ack({ response_action: 'errors', errors: { [block]: text } });
    deps.logger.warn({}, 'a refused modal has no field to show why');
    return ack();
  }
  await ack();
  const responseUrl = body.response_url;
  // A click on the Home tab has no response_url: there is nowhere to answer it, and the tab stays as it was.
  if (typeof responseUrl !== 'string') return deps.logger.info({}, 'a refused click has no response_url to tell the user');
  const respond = deps.responder.to(responseUrl);
  deps.background.run('telling a refused click', () => respond({ response_type: 'ephemeral', replace_original: false, text }));
}
