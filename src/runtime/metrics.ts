/**
 * Prometheus metrics (prom-client, served at GET /metrics): Slack requests by type, name and
 * outcome, Command Service calls by command and status with their latency, Slack API errors,
 * store errors. A request's outcome is known only when the work it started after the ack has
 * ended, so each request is tracked until its last background task settles: the request's own
 * view of the metrics (`forRequest`) travels with its other dependencies and counts it then.
 */

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

interface Tracked {
  type: string;
  name: string;
  outcome: string;
  pending: number;
}

interface Instruments {
  registry: Registry;
  requests: Counter<'type' | 'name' | 'outcome'>;
  service: Histogram<'command' | 'status'>;
  slackErrors: Counter<'method' | 'error'>;
  storeErrors: Counter<'operation'>;
  arrivalChecks: Counter<'outcome'>;
  arrivalCalls: Histogram;
  arrivalCycle: Gauge;
}

function instruments(options: { defaultMetrics?: boolean }): Instruments {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'countersign_' });
  return {
    registry,
    requests: new Counter({
      name: 'countersign_requests_total',
      help: 'Slack requests (slash commands, clicks, modal submissions, events) by name, once all their work has ended, by outcome',
      labelNames: ['type', 'name', 'outcome'],
      registers: [registry],
    }),
    service: new Histogram({
      name: 'countersign_service_call_seconds',
      help: 'Command Service calls by command and HTTP status ("error" when there was no answer)',
      labelNames: ['command', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    slackErrors: new Counter({
      name: 'countersign_slack_api_errors_total',
      help: 'Slack Web API and response_url calls that failed, by method and error',
      labelNames: ['method', 'error'],
      registers: [registry],
    }),
    storeErrors: new Counter({
      name: 'countersign_store_errors_total',
      help: 'Store operations that failed (database unreachable, constraint, decryption)',
      labelNames: ['operation'],
      registers: [registry],
    }),
    arrivalChecks: new Counter({
      name: 'countersign_arrival_checks_total',
      help: 'Checks of an approver’s pending list for arrivals, by outcome (unchanged, primed, changed, relinkAsked, parked, lost, retried, failed)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    arrivalCalls: new Histogram({
      name: 'countersign_arrival_service_calls_per_check',
      help: 'Command Service calls one arrivals check made (one for a list that fits a page and nothing new to announce)',
      buckets: [0, 1, 2, 3, 5, 8, 13],
      registers: [registry],
    }),
    arrivalCycle: new Gauge({
      name: 'countersign_arrival_cycle_seconds',
      help: 'How long it takes to check every watched approver once, as this instance last saw it: NOTIFY_INTERVAL, stretched when the service cannot keep it',
      registers: [registry],
    }),
  };
}

export class Metrics {
  readonly registry: Registry;
  readonly #i: Instruments;
  /** The request this view counts; undefined for the app's own metrics. */
  readonly #tracked: Tracked | undefined;

  constructor(options: { defaultMetrics?: boolean } | { of: Instruments; tracked: Tracked } = {}) {
    this.#i = 'of' in options ? options.of : instruments(options);
    this.#tracked = 'of' in options ? options.tracked : undefined;
    this.registry = this.#i.registry;
  }

  /**
   * The metrics as one Slack request sees them: its outcome() and hold() are its own. It is counted
   * once `end()` has been called and every hold() released: when it and all work it started have ended.
   */
  forRequest(type: string, name: string): Metrics {
    return new Metrics({ of: this.#i, tracked: { type, name, outcome: 'ok', pending: 1 } });
  }

  /** The request's own handling is over (its work after the ack may not be); failed: it threw. */
  end(failed = false): void {
    const tracked = this.#tracked;
    if (tracked === undefined) return;
    if (failed) this.#mark(tracked, 'error');
    this.#release(tracked);
  }

  /** Keeps the request open until the returned function is called (work after the ack). */
  hold(): (failed?: boolean) => void {
    const tracked = this.#tracked;
    if (tracked === undefined) return () => {};
    tracked.pending++;
    let released = false;
    return (failed) => {
      if (released) return;
      released = true;
      if (failed) this.#mark(tracked, 'error');
      this.#release(tracked);
    };
  }

  /** How the request ended, when not "ok": invalid, not_linked, refused, rate_limited, or a service error's kind. */
  outcome(outcome: string): void {
    const tracked = this.#tracked;
    if (tracked) this.#mark(tracked, outcome);
  }

  serviceCall(command: string, status: number | 'error', seconds: number): void {
    this.#i.service.observe({ command, status: String(status) }, seconds);
  }

  slackError(method: string, error: string): void {
    this.#i.slackErrors.inc({ method, error: error.slice(0, 60) });
  }

  storeError(operation: string): void {
    this.#i.storeErrors.inc({ operation });
  }

  arrivalCheck(outcome: string, serviceCalls: number): void {
    this.#i.arrivalChecks.inc({ outcome });
    this.#i.arrivalCalls.observe(serviceCalls);
  }

  arrivalCycle(seconds: number): void {
    this.#i.arrivalCycle.set(seconds);
  }

  #mark(tracked: Tracked, outcome: string): void {
    // The first thing to go wrong is what the request is counted as.
    if (tracked.outcome === 'ok') tracked.outcome = outcome.replace(/-/g, '_');
  }

  #release(tracked: Tracked): void {
    tracked.pending--;
    if (tracked.pending === 0) this.#i.requests.inc({ type: tracked.type, name: tracked.name, outcome: tracked.outcome });
  }
}

/**
 * The same object, with every method whose promise rejects reported to `onFailure` (and still
 * rejected): the store's failures are counted by operation without the store knowing of metrics.
 */
export function countFailures<T extends object>(target: T, onFailure: (method: string) => void): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      // Called on the object itself, never on the proxy: its private fields are its own.
      if (property === 'close') return value.bind(object);
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(object, args);
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            onFailure(String(property));
            throw error;
          });
        }
        return result;
      };
    },
  });
}
