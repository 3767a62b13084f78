/**
 * What the service does not offer, remembered for every user of one client: an administrator may
 * switch a command off (the app then stops offering Details, or decisions), and on again, so "not
 * offered" is believed for a while and then the command is tried again.
 */

import type { Logger } from '../runtime/logger.js';
import { NotOfferedError } from './errors.js';

/**
 * Commands an administrator may have switched off, whose absence the app works around (it stops
 * offering Details, or decisions); 'decision' stands for the operator's decision call, whatever
 * its command is named.
 */
export type OptionalCommand = 'getApprovalDetails' | 'getRequestItems' | 'decision';

/** How long "not offered" is believed before the command is tried again: an administrator may have switched it on. */
export const NOT_OFFERED_RECHECK_MS = 3_600_000;

export interface Offerings {
  offers(command: OptionalCommand): boolean;
  /**
   * Runs `work` for an optional command: at once NotOfferedError while the command is believed
   * switched off; a NotOfferedError it throws is remembered. `named`: the command as the service
   * knows it, when the key is not its name (the decision call's).
   */
  optional<T>(logger: Logger, command: OptionalCommand, work: () => Promise<T>, named?: string): Promise<T>;
}

export function createOfferings(now: () => number, recheckMs: number): Offerings {
  const notOfferedUntil = new Map<OptionalCommand, number>();
  const offers = (command: OptionalCommand): boolean => {
    const until = notOfferedUntil.get(command);
    if (until === undefined) return true;
    if (now() < until) return false;
    notOfferedUntil.delete(command);
    return true;
  };
  return {
    offers,
    async optional(logger, command, work, named = command) {
      if (!offers(command)) throw new NotOfferedError({ command: named, status: 404 }, true);
      try {
        return await work();
      } catch (error) {
        if (error instanceof NotOfferedError) {
          if (!notOfferedUntil.has(command))
            logger.info({ command: named, recheckMinutes: Math.round(recheckMs / 60_000) }, 'command not offered');
          notOfferedUntil.set(command, now() + recheckMs);
        }
        throw error;
      }
    },
  };
}
