import { describe, expect, it } from 'vitest';
import { canRemove, canSetLimitOf, capabilitiesOf } from './permissions';

describe('what the dashboard offers each role (docs/organizations.md)', () => {
  it('owners: billing, top-ups, alerts, renaming, roles, invitations of any role', () => {
    expect(capabilitiesOf('owner', false)).toEqual({
      billing: true,
      transactions: true,
      editKeyLimits: true,
      topup: true,
      editAlerts: true,
      rename: true,
      changeRoles: true,
      seeInvitations: true,
      inviteRoles: ['member', 'admin', 'owner'],
    });
  });

  it('admins: the alerts and transactions but no top-up; invitations of members only; no renaming or roles', () => {
    const c = capabilitiesOf('admin', false);
    expect(c).toMatchObject({ billing: true, transactions: true, topup: false, editAlerts: false, rename: false, changeRoles: false, seeInvitations: true, editKeyLimits: true });
    expect(c.inviteRoles).toEqual(['member']);
  });

  it('members: no Billing, no transactions, no key limits, no invitations', () => {
    expect(capabilitiesOf('member', false)).toMatchObject({ billing: false, transactions: false, topup: false, editKeyLimits: false, seeInvitations: false, inviteRoles: [] });
  });

  it('a personal organization takes no invitations, no renaming and no role changes', () => {
    expect(capabilitiesOf('owner', true)).toMatchObject({ billing: true, topup: true, rename: false, changeRoles: false, seeInvitations: false, inviteRoles: [] });
  });

  it('spend limits: owners for anyone, admins for members only', () => {
    expect(canSetLimitOf('owner', 'owner')).toBe(true);
    expect(canSetLimitOf('admin', 'member')).toBe(true);
    expect(canSetLimitOf('admin', 'admin')).toBe(false);
    expect(canSetLimitOf('member', 'member')).toBe(false);
  });

  it('removal: owners anyone, admins members, everyone themselves; nobody from a personal organization', () => {
    expect(canRemove('owner', 'admin', false, false)).toBe(true);
    expect(canRemove('admin', 'member', false, false)).toBe(true);
    expect(canRemove('admin', 'owner', false, false)).toBe(false);
    expect(canRemove('member', 'member', false, false)).toBe(false);
    expect(canRemove('member', 'member', true, false)).toBe(true);
    expect(canRemove('owner', 'owner', true, true)).toBe(false);
  });
});
