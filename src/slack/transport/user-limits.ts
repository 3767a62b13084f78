/**
 * Users' own limit (COMMANDS_PER_MINUTE): each user's commands, clicks and modal submissions, each
 * kind a bucket of N that refills at N a minute, so that a burst of a few is fine and a script in a
 * loop is slowed. Kept in this instance's memory: behind a load balancer each instance counts on its
 * own. Slack's own limits on what countersign sends are web-api/slack-pacing.ts's.
 */

export class UserRateLimit {
  readonly #perMinute: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perMinute: number) {
    this.#perMinute = perMinute;
  }

  /** Takes one from the user's bucket: 0 when allowed, else the milliseconds until one is free. */
  take(userId: string, nowMs: number): number {
    if (this.#perMinute <= 0) return 0;
    const rate = this.#perMinute / 60_000;
    const bucket = this.#buckets.get(userId) ?? { tokens: this.#perMinute, at: nowMs };
    bucket.tokens = Math.min(this.#perMinute, bucket.tokens + (nowMs - bucket.at) * rate);
    bucket.at = nowMs;
    if (bucket.tokens < 1) {
      this.#buckets.set(userId, bucket);
      return Math.ceil((1 - bucket.tokens) / rate);
    }
    bucket.tokens -= 1;
    this.#buckets.set(userId, bucket);
    if (this.#buckets.size > 50_000) this.#forgetFull(nowMs);
    return 0;
  }

  /** Users whose bucket has refilled need no entry. */
  #forgetFull(nowMs: number): void {
    for (const [user, b] of this.#buckets) {
      if (b.tokens + (nowMs - b.at) * (this.#perMinute / 60_000) >= this.#perMinute) this.#buckets.delete(user);
    }
  }
}
