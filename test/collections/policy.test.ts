import { describe, expect, it } from 'vitest';
import { checkCollect, cooldownTarget, mayOverride, needsGroupLookup } from '../../src/collections/policy.js';
import type { CollectPolicy } from '../../src/config.js';

const open: CollectPolicy = {
  allowedChannels: [],
  allowedUsers: [],
  allowedUserGroups: [],
  forceAllowedUsers: [],
  cooldownMs: 600_000,
  watchLimitMs: 3_600_000,
};
const req = { userId: 'U1', channelId: 'C1', force: false, userGroups: [] as string[] };

describe('checkCollect', () => {
  it('lets anyone start anything, force included, when nothing is set', () => {
    expect(checkCollect(open, { ...req, force: true })).toBeUndefined();
    expect(mayOverride(open, 'UANY')).toBe(true);
  });

  it('checks the channel first, then the user by name or group, then force', () => {
    const policy = {
      ...open,
      allowedChannels: ['C0OPS'],
      allowedUsers: ['UGRACE'],
      allowedUserGroups: ['S1'],
      forceAllowedUsers: ['UGRACE'],
    };
    expect(checkCollect(policy, { ...req, userId: 'UGRACE' })).toEqual({ kind: 'channel', allowedChannels: ['C0OPS'] });
    expect(checkCollect(policy, { ...req, channelId: 'C0OPS' })?.kind).toBe('user');
    expect(checkCollect(policy, { ...req, channelId: 'C0OPS', userGroups: ['S1'] })).toBeUndefined();
    expect(checkCollect(policy, { ...req, channelId: 'C0OPS', userGroups: ['S2'] })?.kind).toBe('user');
    expect(checkCollect(policy, { ...req, channelId: 'C0OPS', userGroups: ['S1'], force: true })).toEqual({
      kind: 'force',
      forceAllowedUsers: ['UGRACE'],
    });
    expect(checkCollect(policy, { ...req, channelId: 'C0OPS', userId: 'UGRACE', force: true })).toBeUndefined();
  });

  it('asks Slack for groups only when the user is not already allowed by name', () => {
    const policy = { ...open, allowedUsers: ['UGRACE'], allowedUserGroups: ['S1'] };
    expect(needsGroupLookup(policy, 'UGRACE')).toBe(false);
    expect(needsGroupLookup(policy, 'U1')).toBe(true);
    expect(needsGroupLookup(open, 'U1')).toBe(false);
  });
});

describe('cooldownTarget', () => {
  it('is the same for the same collection however it is typed, and differs otherwise', () => {
    expect(cooldownTarget({ name: 'AD  Accounts' })).toBe(cooldownTarget({ name: 'ad accounts', force: true }));
    expect(cooldownTarget({ name: 'AD Accounts' })).not.toBe(cooldownTarget({ name: 'AD Accounts', application: 'Active Directory' }));
    expect(cooldownTarget({})).toBe('name=*;application=*');
    expect(cooldownTarget({ application: 'AWS' })).not.toBe(cooldownTarget({ name: 'AWS' }));
  });
});
