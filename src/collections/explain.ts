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
  'app-sign-in': 'the Command Service refused countersign’s own sign-in (an administrator is needed)',
};

/**
 * A refused token's words, by what the service said: a command it does not let the user run, or a
 * user it does not know (the trusted mode's auth-user-id), is the user's standing, not their token's.
 */
function refusalWords(message: string): string {
  const command = /not valid for the command '([^']*)'/i.exec(message)?.[1];
  if (command !== undefined && !/invalid or expired/i.test(message))
    return `the service does not let them run ${command}; an administrator of the service grants it`;
  if (/could not be found/i.test(message)) return 'the service does not know the user they are linked as';
  return SERVICE_WORDS['invalid-token'] as string;
}

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
        reason.collector === undefined ? ' had started it ' : ` had started collector ${reason.collector} `,
        { time: reason.at },
        ...(reason.offered ? ['; Start anyway was offered, not taken'] : []),
      ];
    case 'service': {
      if (reason.error === 'invalid-token') return [refusalWords(reason.message)];
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

/** How each attempt ended, in the words history and the audit table use; an outcome a newer release wrote, as it was stored. */
const OUTCOME_WORDS: Record<string, string> = {
  started: 'started',
  'nothing-matched': 'matched no collector',
  refused: 'refused',
  failed: 'failed',
  cancelled: 'cancelled',
  unanswered: 'asked to confirm, no answer',
  confirmed: 'confirmed, not started yet',
  sent: 'sent to the service, no answer recorded',
};

export function outcomeWords(outcome: string): string {
  return Object.hasOwn(OUTCOME_WORDS, outcome) ? (OUTCOME_WORDS[outcome] as string) : outcome;
}

/**
 * A run's last known state as the channel's message words it (the service's New is "queued"); one
 * the service named otherwise, lower case as it was; undefined before the watcher first asked.
 */
const RUN_STATE_WORDS: Record<string, string> = { New: 'queued', Running: 'running', Completed: 'completed', Aborted: 'aborted' };

export function runStateWords(state: string | undefined): string | undefined {
  if (state === undefined) return undefined;
  return Object.hasOwn(RUN_STATE_WORDS, state) ? RUN_STATE_WORDS[state] : state.toLowerCase();
}
