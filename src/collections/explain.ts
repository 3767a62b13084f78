/**
 * Why an attempt ended as it did, read back from its audit row. The use case writes a short,
 * stable detail ("cooldown: started by U… at …", "conflict: …"); readers (the channel's history,
 * the auditors' CLI) get it as a reason they can put in words of their own.
 */

import type { CollectAttempt } from '../store/index.js';

export type AttemptReason =
  | { kind: 'channel'; allowedChannels: string[] }
  | { kind: 'user' }
  | { kind: 'force' }
  | { kind: 'not-linked' }
  | { kind: 'cooldown'; userId: string; at: Date }
  /** The service's own error, by kind (ServiceError kinds), with what it said. */
  | { kind: 'service'; error: string; message: string }
  | { kind: 'internal' }
  | { kind: 'cancelled' }
  | { kind: 'not-again' }
  /** A detail this version does not recognise: shown as it was written. */
  | { kind: 'other'; text: string };

export function explainAttempt(attempt: Pick<CollectAttempt, 'outcome' | 'detail'>): AttemptReason | undefined {
  const detail = attempt.detail;
  if (detail === undefined || detail === '') return undefined;
  const channel = /^not an allowed channel \(allowed: (.*)\)$/.exec(detail);
  if (channel) return { kind: 'channel', allowedChannels: (channel[1] ?? '').split(/,\s*/).filter((c) => c !== '') };
  if (detail === 'not an allowed user') return { kind: 'user' };
  if (detail === 'may not force') return { kind: 'force' };
  if (detail === 'not linked') return { kind: 'not-linked' };
  const cooldown = /^cooldown: started by ([UW][A-Z0-9]+) at (\d{4}-\d{2}-\d{2}T[\d:.]+Z)$/.exec(detail);
  if (cooldown) return { kind: 'cooldown', userId: cooldown[1] as string, at: new Date(cooldown[2] as string) };
  if (detail === 'internal error') return { kind: 'internal' };
  if (detail === 'cancelled at the confirmation') return { kind: 'cancelled' };
  if (detail === 'did not start it again within the cooldown') return { kind: 'not-again' };
  const service = /^([a-z]+(?:-[a-z]+)*): ([\s\S]*)$/.exec(detail);
  if (attempt.outcome === 'failed' && service) return { kind: 'service', error: service[1] as string, message: service[2] as string };
  return { kind: 'other', text: detail };
}
