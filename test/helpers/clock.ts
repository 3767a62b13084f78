/** A clock that tests move by hand. */
export class TestClock {
  #ms: number;
  constructor(start: string | Date = '2026-11-22T12:00:00Z') {
    this.#ms = new Date(start).getTime();
  }
  now = (): Date => new Date(this.#ms);
  advance(ms: number): void {
    this.#ms += ms;
  }
}
