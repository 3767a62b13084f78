/**
 * Why an attempt ended as it did, in words. The trail holds the reason as fields (the use case
 * writes them, store/types.ts AttemptReason); readers (the channel's history, the auditors' CLI)
 * put them in words of their own, from the parts this module gives.
 */

import type { AttemptReason, CollectAttempt } from '../store/index.js';

export type { AttemptReason } from '../store/index.js';

/** The reason worth telling: a started attempt's steps may have been refused or failed before, but it started. */
export function explainAttempt(attempt: Pick<CollectAttempt, 'outcome' | 'reason'>): AttemptReason | undefined {
  return attempt.outcome === 'started' ? undefined : attempt.reason;
}

/** A reason's words, with the person and the time left for the reader's medium: a mention and a local date in Slack, an id and a zone offset in a terminal. */
export type ReasonPart = string | { user: string } | { time: Date };

const SERVICE_WORDS: Record<string, string> = {
  'invalid-token': 'the service refused their token',
  'missing-parameter': 'the service wanted a parameter countersign does not send',
  'no-eligible-collectors': 'the service has no collector for that application',
  conflict: 'already queued at the service',
  'service-unavailable': 'the service did not answer',
  'unexpected-response': 'the service gave an answer countersign could not read',
  'app-sign-in': 'countersign could not sign in to the service as itself',
};

export function reasonParts(reason: AttemptReason): ReasonPart[] {
  switch (reason.kind) {
    case 'channel':
      return ['not from this channel'];
    case 'user':
      return ['they are not among those allowed to start collections'];
    case 'force':
      return ['they may not force'];
    case 'not-linked':
      return ['their account was not linked'];
    case 'cooldown':
      return [
        { user: reason.userId },
        ' had started it ',
        { time: reason.at },
        ...(reason.offered ? ['; Start anyway was offered, not taken'] : []),
      ];
    case 'service': {
      const words = SERVICE_WORDS[reason.error];
      return [words ?? `the service said “${reason.message}”`];
    }
    case 'internal':
      return ['countersign failed inside'];
    case 'cancelled':
      return ['cancelled at the confirmation'];
    case 'not-again':
      return ['not started again within the cooldown'];
    case 'other':
      return [reason.text];
  }
}
