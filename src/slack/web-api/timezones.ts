/**
 * Users' time zones from users.info, cached: "today" and "7d" must mean the user's today, and a
 * Web API call per command would cost latency and rate limit. When Slack does not answer (no
 * users:read scope, rate limited, down), the caller falls back (the reminder's stored zone, or
 * UTC) rather than failing. A 429 is not waited out: a zone is worth one short try, and waiting
 * Retry-After would hold the digest or the command that asked; instead nobody's zone is asked
 * for until Retry-After has passed (users.info is Tier 4, about 100 a minute: a 09:00 burst of
 * digests would otherwise meet one 429 after another).
 */

import type { WebClient } from '@slack/web-api';
import type { TimeZones } from '../../deps.js';
import { type Logger, SaidOncePerMinute } from '../../runtime/logger.js';

export function slackTimeZones(client: WebClient, logger: Logger, now: () => Date, ttlMs = 3_600_000, maxEntries = 10_000): TimeZones {
  const cache = new Map<string, { zone: string | undefined; until: number }>();
  /** Until when Slack asked not to be asked (its last 429's Retry-After). */
  let quietUntil = 0;
  // A burst of digests meets a 429 every second or so.
  const limitedSaid = new SaidOncePerMinute();
  return {
    async lookup(userId) {
      const at = now().getTime();
      const hit = cache.get(userId);
      if (hit && hit.until > at) return hit.zone;
      if (at < quietUntil) return undefined;
      let zone: string | undefined;
      try {
        const res = await client.users.info({ user: userId });
        zone = typeof res.user?.tz === 'string' ? res.user.tz : undefined;
      } catch (error) {
        const limited = error as { code?: string; retryAfter?: number };
        if (limited.code === 'slack_webapi_rate_limited_error') {
          const seconds = Math.max(1, limited.retryAfter ?? 1);
          quietUntil = now().getTime() + seconds * 1000;
          const times = limitedSaid.count(quietUntil);
          if (times !== undefined) {
            logger.warn(
              { retryAfterSeconds: seconds, timesSinceLastSaid: times },
              'users.info rate limited; zones not asked for until Retry-After has passed (the stored zone, or UTC, meanwhile)',
            );
          }
        } else {
          logger.warn({ userId, error: (error as Error).message }, 'users.info failed; using UTC');
        }
        return undefined;
      }
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(userId, { zone, until: now().getTime() + ttlMs });
      return zone;
    },
  };
}
