/** A collection attempt as the store reads it back, for renderer and use-case tests: what a test does not say, empty. */
import type { CollectAttempt } from '../../src/store/index.js';

export function attemptOf(over: Partial<CollectAttempt> & Pick<CollectAttempt, 'id' | 'at'>): CollectAttempt {
  return {
    lastAt: over.at,
    teamId: 'T1',
    channelId: 'C0OPS',
    userId: 'U0ADA',
    query: {},
    outcome: 'started',
    reason: undefined,
    leftOut: [],
    ranAgain: [],
    runs: [],
    steps: [],
    ...over,
  };
}
