/**
 * The one place a modal is updated. One the user closed meanwhile (not_found), or that a newer update
 * has changed since (hash_conflict: a later click won), is no failure of anyone's: only the log hears
 * of it. Any other refusal would leave the view before it (Asking…, Sending…) up for ever: it is
 * logged with a reference, and a plain view of our own words that says so takes its place.
 */

import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { SlackDeps } from '../deps.js';

export interface ModalUpdate {
  /** For the log: which modal ('details', 'decision'), and what it is about. */
  what: string;
  about: Record<string, unknown>;
  /** The modal as the click saw it, when known: an update that lands after a newer one is refused rather than overwriting it. */
  hash?: string | undefined;
  /** Our own words, in place of a view Slack refused. */
  unshown: (reference: string) => View;
}

/** Slack's error code for a refused Web API call (invalid_blocks, not_found…), when it gave one. */
export function slackErrorOf(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

export async function updateModal(deps: SlackDeps, client: WebClient, viewId: string, view: View, update: ModalUpdate): Promise<void> {
  try {
    await client.views.update({ view_id: viewId, view, ...(update.hash === undefined ? {} : { hash: update.hash }) });
  } catch (error) {
    const slackError = slackErrorOf(error);
    if (slackError === 'not_found') return void deps.logger.info({ slackError }, `${update.what} modal closed before its update`);
    if (slackError === 'hash_conflict') return void deps.logger.info({ slackError }, `a newer update of the ${update.what} modal won`);
    const reference = deps.newId();
    deps.logger.error({ slackError, error: (error as Error).message, ...update.about, reference }, `Slack refused the ${update.what} view`);
    await client.views
      .update({ view_id: viewId, view: update.unshown(reference) })
      .catch((again: unknown) =>
        deps.logger.warn({ error: (again as Error).message, reference }, `views.update of the ${update.what} failed again`),
      );
  }
}
