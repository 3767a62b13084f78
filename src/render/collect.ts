/**
 * /collect messages: the confirmation the asker sees before starting everything or forcing, and
 * the result the channel sees (who started it, each run id with its collector).
 */

import type { ConfirmReason } from '../commands/collect.js';
import type { CollectionRun, CollectQuery } from '../service/index.js';
import { actions, button, code, context, fallback, inert, type Message, section } from './blocks.js';

export const CONFIRM_ACTIONS = { run: 'collect:run', cancel: 'collect:cancel' } as const;

function describeTarget(query: CollectQuery): string {
  if (query.name !== undefined && query.application !== undefined)
    return `collector *${inert(query.name, 120)}* of *${inert(query.application, 120)}*`;
  if (query.name !== undefined) return `collector *${inert(query.name, 120)}*`;
  if (query.application !== undefined) return `every collector of *${inert(query.application, 120)}*`;
  return '*every collector of every application*';
}

export function renderCollectConfirmation(query: CollectQuery, reasons: readonly ConfirmReason[], confirmationId: string): Message {
  const lines = [`:warning: Start ${describeTarget(query)}${query.force ? ', *forced*' : ''}?`];
  if (reasons.includes('all-collectors'))
    lines.push('This queues a collection run for each collector the service has, which can load the identity system for a long time.');
  if (reasons.includes('force'))
    lines.push('*Force* ignores the circuit-breaker thresholds that stop a collection when its data looks wrong.');
  const danger = reasons.includes('force');
  return {
    text: fallback(`Confirm: start ${describeTarget(query).replace(/\*/g, '')}?`),
    blocks: [
      section(lines.join('\n')),
      actions('collect:confirm', [
        button({
          actionId: CONFIRM_ACTIONS.run,
          text: danger ? 'Run, forced' : 'Run',
          value: confirmationId,
          style: danger ? 'danger' : 'primary',
        }),
        button({ actionId: CONFIRM_ACTIONS.cancel, text: 'Cancel', value: confirmationId }),
      ]),
      context('Only you can see this. Nothing starts until you click Run.'),
    ],
  };
}

export function renderCollectResult(input: { userId: string; query: CollectQuery; runs: readonly CollectionRun[] }): Message {
  const { runs, query } = input;
  const who = `<@${input.userId}>`;
  const forced = query.force ? ' (forced)' : '';
  const noun = runs.length === 1 ? 'collection' : 'collections';
  const lines = runs.map((r) => `• ${r.collector ? `*${inert(r.collector, 120)}*` : '_unnamed collector_'}: run ${code(r.runId, 40)}`);
  // One section holds about 40 runs; a service with hundreds of collectors gets the rest summarised.
  const MAX_LISTED = 40;
  const listed = lines.slice(0, MAX_LISTED);
  if (lines.length > MAX_LISTED) listed.push(`…and ${lines.length - MAX_LISTED} more.`);
  const filters = [
    query.name !== undefined ? `name ${code(query.name, 60)}` : undefined,
    query.application !== undefined ? `application ${code(query.application, 60)}` : undefined,
  ].filter((x) => x !== undefined);
  return {
    text: fallback(
      `Started ${runs.length} ${noun}${forced}: ${runs.map((r) => `${r.collector ?? 'collector'} (run ${r.runId})`).join(', ')}`,
    ),
    blocks: [
      section(`${who} started ${runs.length} ${noun}${forced}:\n${listed.join('\n')}`),
      context(filters.length > 0 ? filters.join(' · ') : 'all collectors of all applications'),
    ],
  };
}

export function renderNoCollectorMatched(query: CollectQuery): Message {
  const text = `No collector matched ${describeTarget(query)}, so nothing was started. Check the collector's name as the service spells it.`;
  return { text: fallback(text.replace(/\*/g, '')), blocks: [section(text)] };
}

export function renderConfirmationClosed(outcome: 'cancelled' | 'already-used' | 'expired' | 'starting', query?: CollectQuery): Message {
  const text = {
    cancelled: 'Cancelled. Nothing was started.',
    'already-used': 'This confirmation was already used: one confirmation starts one collection.',
    expired: 'This confirmation has expired. Type the /collect command again.',
    starting: query ? `Starting ${describeTarget(query)}…` : 'Starting…',
  }[outcome];
  return { text: fallback(text.replace(/\*/g, '')), blocks: [section(text)] };
}
