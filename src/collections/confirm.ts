/**
 * A /collect that starts everything or forces is offered as a confirmation first, and the asker's
 * Run or Cancel decides it. The store's atomic claim is what decides: of any number of clicks, on
 * any number of instances, exactly one gets the confirmation. Cancel claims too, so a Run clicked
 * after Cancel does nothing.
 */

import type { ConfirmReason } from '../parse/collect.js';
import type { CollectQuery } from '../service/index.js';
import { collectQuerySchema } from '../service/query.js';
import type { AttemptReason, CollectStep, Principal } from '../store/index.js';
import { coverageOf } from './coverage.js';
import { type CollectRefusal, mayOverride } from './policy.js';
import type { CollectDeps } from './ports.js';
import { type CollectionRequest, catalogFor, createConfirmation, heldNow, refusalFor, type StartOutcome } from './start.js';
import { planStart } from './start-plan.js';
import { cooldownReason, recordStep } from './start-record.js';

export type OfferOutcome =
  | { kind: 'confirm'; id: string; query: CollectQuery; reasons: readonly ConfirmReason[] }
  | { kind: 'refused'; refusal: CollectRefusal }
  | { kind: 'not-linked' }
  | Extract<StartOutcome, { kind: 'cooldown' }>;

/**
 * Asks only someone who could go on, and one question only: the refused and the unlinked learn
 * that first, and when what they ask for was started a moment ago, the cooldown's "Start anyway"
 * is the question (it carries force too), not a confirmation followed by it.
 */
export async function offerConfirmation(
  deps: CollectDeps,
  req: CollectionRequest,
  reasons: readonly ConfirmReason[],
): Promise<OfferOutcome> {
  // The attempt is recorded when the question is asked, and the click completes that same line.
  const attemptId = deps.newId();
  const at = deps.now();
  const record = (step: CollectStep) => recordStep(deps, req, attemptId, step, at);
  const refusal = await refusalFor(deps, req, attemptId, at);
  if (refusal) return { kind: 'refused', refusal };
  if ((await deps.credentials.credentialsFor(req.who, 'collectEntitlements')) === undefined) {
    await record({ step: 'refused', reason: { kind: 'not-linked' } });
    return { kind: 'not-linked' };
  }
  if (deps.collectPolicy.cooldownMs > 0) {
    const coverage = coverageOf(req.query, await catalogFor(deps, req.who.teamId));
    const held = await heldNow(deps, req, coverage);
    // With only some of an exactly known set held, the start leaves those out and says so: the usual question will do.
    const plan = planStart(req.query, coverage, held);
    if (plan.kind === 'held') {
      const overrideId = mayOverride(deps.collectPolicy, req.who.userId) ? await createConfirmation(deps, req, true, attemptId) : undefined;
      await record({ step: 'refused', reason: cooldownReason(req.query, held, overrideId !== undefined) });
      return {
        kind: 'cooldown',
        query: plan.query,
        held,
        cooldownMs: deps.collectPolicy.cooldownMs,
        overrideId,
        unknownRest: plan.unknownRest,
      };
    }
  }
  await record({ step: 'asked' });
  return { kind: 'confirm', id: await createConfirmation(deps, req, false, attemptId), query: req.query, reasons };
}

export type Decision =
  | { kind: 'not-yours'; ownerId: string }
  /** Not a confirmation of ours (forged, or from a build that stored something else). */
  | { kind: 'unreadable' }
  | { kind: 'already-used' }
  | { kind: 'expired' }
  | { kind: 'cancelled' }
  | { kind: 'confirmed'; request: CollectionRequest };

export async function decideConfirmation(deps: CollectDeps, who: Principal, id: string, decision: 'run' | 'cancel'): Promise<Decision> {
  const claim = /^[\w-]{8,64}$/.test(id)
    ? await deps.store.claimConfirmation(id, who.userId, deps.now())
    : { status: 'not-found' as const };
  switch (claim.status) {
    case 'not-yours':
      deps.logger.info({ user: who.userId, owner: claim.ownerId }, 'confirmation refused: not the asker');
      return { kind: 'not-yours', ownerId: claim.ownerId };
    case 'not-found':
      return { kind: 'unreadable' };
    case 'already-used':
      return { kind: 'already-used' };
    case 'expired':
      return { kind: 'expired' };
    case 'claimed':
      break;
  }
  const payload = readPayload(claim.confirmation.payload);
  // Confirmations made before questions were recorded have no attempt: the click begins one.
  const attemptId = payload?.attemptId ?? deps.newId();
  const asked = payload && { who, channelId: claim.confirmation.channelId, query: payload.query };
  if (decision === 'cancel') {
    deps.logger.info({ user: who.userId, confirmation: id }, 'collection cancelled');
    if (asked) {
      const reason: AttemptReason = payload?.overrideCooldown ? { kind: 'not-again' } : { kind: 'cancelled' };
      await recordStep(deps, asked, attemptId, { step: 'cancelled', reason });
    }
    return { kind: 'cancelled' };
  }
  if (payload === undefined || asked === undefined) {
    deps.logger.error({ confirmation: id }, 'stored confirmation does not hold a valid query');
    return { kind: 'unreadable' };
  }
  await recordStep(deps, asked, attemptId, { step: 'confirmed' });
  return { kind: 'confirmed', request: { ...asked, overrideCooldown: payload.overrideCooldown, attemptId } };
}

/**
 * The stored payload, re-validated; confirmations made before "Start anyway" existed hold the bare
 * query, and those made before questions were recorded, no attempt id (the click then adds a line).
 */
function readPayload(text: string): { query: CollectQuery; overrideCooldown: boolean; attemptId?: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const wrapped = value as { query?: unknown; overrideCooldown?: unknown; attemptId?: unknown } | null;
  const query = collectQuerySchema.safeParse(wrapped !== null && typeof wrapped === 'object' && 'query' in wrapped ? wrapped.query : value);
  if (!query.success) return undefined;
  const attemptId = wrapped?.attemptId;
  return {
    query: query.data,
    overrideCooldown: wrapped?.overrideCooldown === true,
    ...(typeof attemptId === 'string' && /^[\w-]{1,64}$/.test(attemptId) ? { attemptId } : {}),
  };
}
