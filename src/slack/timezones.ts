/**
 * Users' time zones from users.info, cached: "today" and "7d" must mean the user's today, and a
 * Web API call per command would cost latency and rate limit. When Slack does not answer (no
 * users:read scope, rate limited, down), the caller falls back to UTC rather than failing.
 */

import type { WebClient } from '@slack/web-api';
import type { TimeZones } from '../runtime/deps.js';
import type { Logger } from '../runtime/logger.js';

export function slackTimeZones(client: WebClient, logger: Logger, now: () => Date, ttlMs = 3_600_000, maxEntries = 10_000): TimeZones {
  const cache = new Map<string, { zone: string | undefined; until: number }>();
  return {
    async lookup(userId) {
      const hit = cache.get(userId);
      if (hit && hit.until > now().getTime()) return hit.zone;
      let zone: string | undefined;
      try {
        const res = await client.users.info({ user: userId });
        zone = typeof res.user?.tz === 'string' ? res.user.tz : undefined;
      } catch (error) {
        logger.warn({ userId, error: (error as Error).message }, 'users.info failed; using UTC');
        return undefined;
      }
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(userId, { zone, until: now().getTime() + ttlMs });
      return zone;
    },
  };
}
