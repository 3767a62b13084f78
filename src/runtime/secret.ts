import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A credential (service token, password) that refuses to be printed: String(), JSON, template
 * literals and util.inspect (hence console.log and loggers) all show "[redacted]". The value is
 * only reachable through reveal(), which makes every place that uses it easy to find.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  get length(): number {
    return this.#value.length;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
