/**
 * Prometheus metrics (prom-client, served at GET /metrics): Slack requests by type, name and
 * outcome, Command Service calls by command and status with their latency, Slack API errors,
 * store errors. A request's outcome is known only when the work it started after the ack has
 * ended, so each request is tracked until its last background task settles.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

interface Tracked {
  type: string;
  name: string;
  outcome: string;
  pending: number;
}

export class Metrics {
  readonly registry = new Registry();
  readonly #als = new AsyncLocalStorage<Tracked>();
  readonly #requests: Counter<'type' | 'name' | 'outcome'>;
  readonly #service: Histogram<'command' | 'status'>;
  readonly #slackErrors: Counter<'method' | 'error'>;
  readonly #storeErrors: Counter<'operation'>;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'countersign_' });
    this.#requests = new Counter({
      name: 'countersign_requests_total',
      help: 'Slack requests (slash commands, clicks, modal submissions, events) by name, once all their work has ended, by outcome',
      labelNames: ['type', 'name', 'outcome'],
      registers: [this.registry],
    });
    this.#service = new Histogram({
      name: 'countersign_service_call_seconds',
      help: 'Command Service calls by command and HTTP status ("error" when there was no answer)',
      labelNames: ['command', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.#slackErrors = new Counter({
      name: 'countersign_slack_api_errors_total',
      help: 'Slack Web API and response_url calls that failed, by method and error',
      labelNames: ['method', 'error'],
      registers: [this.registry],
    });
    this.#storeErrors = new Counter({
      name: 'countersign_store_errors_total',
      help: 'Store operations that failed (database unreachable, constraint, decryption)',
      labelNames: ['operation'],
      registers: [this.registry],
    });
  }

  /** Runs the handling of one Slack request; it is counted when it and all work it started have ended. */
  async track<T>(type: string, name: string, handle: () => Promise<T>): Promise<T> {
    const tracked: Tracked = { type, name, outcome: 'ok', pending: 1 };
    return this.#als.run(tracked, async () => {
      try {
        return await handle();
      } catch (error) {
        this.#mark(tracked, 'error');
        throw error;
      } finally {
        this.#release(tracked);
      }
    });
  }

  /** Keeps the current request open until the returned function is called (work after the ack). */
  hold(): (failed?: boolean) => void {
    const tracked = this.#als.getStore();
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

  /** How the current request ended, when not "ok": invalid, not_linked, refused, rate_limited, or a service error's kind. */
  outcome(outcome: string): void {
    const tracked = this.#als.getStore();
    if (tracked) this.#mark(tracked, outcome);
  }

  serviceCall(command: string, status: number | 'error', seconds: number): void {
    this.#service.observe({ command, status: String(status) }, seconds);
  }

  slackError(method: string, error: string): void {
    this.#slackErrors.inc({ method, error: error.slice(0, 60) });
  }

  storeError(operation: string): void {
    this.#storeErrors.inc({ operation });
  }

  #mark(tracked: Tracked, outcome: string): void {
    // The first thing to go wrong is what the request is counted as.
    if (tracked.outcome === 'ok') tracked.outcome = outcome.replace(/-/g, '_');
  }

  #release(tracked: Tracked): void {
    tracked.pending--;
    if (tracked.pending === 0) this.#requests.inc({ type: tracked.type, name: tracked.name, outcome: tracked.outcome });
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
