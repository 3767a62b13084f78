/**
 * Who may start a collection, where, and whether it is too soon to start the same one again.
 * Pure: the configuration and the request in, a refusal (or none) out. The Slack side resolves
 * user-group membership before asking, so that nothing here waits on Slack.
 */

import type { CollectPolicy } from '../config.js';
import type { CollectQuery } from '../service/index.js';

export type CollectRefusal =
  | { kind: 'channel'; allowedChannels: readonly string[] }
  | { kind: 'user'; allowedUsers: readonly string[]; allowedUserGroups: readonly string[] }
  | { kind: 'force'; forceAllowedUsers: readonly string[] };

export interface CollectRequest {
  userId: string;
  channelId: string;
  force: boolean;
  /** Which of the policy's allowed user groups the user is in. */
  userGroups: readonly string[];
}

/** The user-group check is only needed when the user is not allowed by name. */
export function needsGroupLookup(policy: CollectPolicy, userId: string): boolean {
  return policy.allowedUserGroups.length > 0 && !policy.allowedUsers.includes(userId);
}

export function checkCollect(policy: CollectPolicy, req: CollectRequest): CollectRefusal | undefined {
  if (policy.allowedChannels.length > 0 && !policy.allowedChannels.includes(req.channelId))
    return { kind: 'channel', allowedChannels: policy.allowedChannels };
  const restricted = policy.allowedUsers.length > 0 || policy.allowedUserGroups.length > 0;
  const named = policy.allowedUsers.includes(req.userId);
  const grouped = req.userGroups.some((g) => policy.allowedUserGroups.includes(g));
  if (restricted && !named && !grouped)
    return { kind: 'user', allowedUsers: policy.allowedUsers, allowedUserGroups: policy.allowedUserGroups };
  if (req.force && !mayOverride(policy, req.userId)) return { kind: 'force', forceAllowedUsers: policy.forceAllowedUsers };
  return undefined;
}

/** Forcing, and starting again within the cooldown: the same trust. */
export function mayOverride(policy: CollectPolicy, userId: string): boolean {
  return policy.forceAllowedUsers.length === 0 || policy.forceAllowedUsers.includes(userId);
}

/**
 * What the cooldown is kept per: the collector and application asked for, as the service
 * matches them (without regard to case). Forcing does not make it another collection.
 */
export function cooldownTarget(query: CollectQuery): string {
  const norm = (v: string | undefined) => (v === undefined ? '*' : v.trim().toLowerCase().replace(/\s+/g, ' '));
  return `name=${norm(query.name)};application=${norm(query.application)}`;
}
