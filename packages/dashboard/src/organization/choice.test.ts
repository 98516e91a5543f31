import { describe, expect, it } from 'vitest';
import type { Organization } from '../api/organization-types';
import type { KeyValueStore } from './browser-storage';
import { chooseOrganization, choiceKey, organizationLabel, readChoice, sortOrganizations, writeChoice } from './choice';

const org = (over: Partial<Organization>): Organization => ({ id: 'o', name: 'o', personal: false, role: 'owner', created_at: '2026-11-26T00:00:00Z', ...over });
const personal = org({ id: 'user-1', name: 'a@example.com', personal: true });
const acme = org({ id: 'acme', name: 'Acme video team', role: 'member' });
const beta = org({ id: 'beta', name: 'Beta', role: 'admin' });

class MemoryStore implements KeyValueStore {
  readonly map = new Map<string, string>();
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.map.set(key, value);
  }
  removeItem(key: string) {
    this.map.delete(key);
  }
}

describe('the organization the dashboard acts on', () => {
  it('lists the personal organization first, shown as "Personal", then by name', () => {
    expect(sortOrganizations([beta, acme, personal]).map((o) => o.id)).toEqual(['user-1', 'acme', 'beta']);
    expect(organizationLabel(personal)).toBe('Personal');
    expect(organizationLabel(acme)).toBe('Acme video team');
  });

  it('keeps the stored choice while the person is a member of it, else falls back to the personal one', () => {
    expect(chooseOrganization([personal, acme, beta], 'beta')?.id).toBe('beta');
    expect(chooseOrganization([personal, acme], 'beta')?.id).toBe('user-1');
    expect(chooseOrganization([personal, acme], null)?.id).toBe('user-1');
    expect(chooseOrganization([acme], null)?.id).toBe('acme');
    expect(chooseOrganization([], 'beta')).toBeUndefined();
  });

  it('remembers the choice per signed-in person; choosing the personal one forgets it', () => {
    const store = new MemoryStore();
    writeChoice(store, 'user-1', acme);
    expect(store.map.get(choiceKey('user-1'))).toBe('acme');
    expect(readChoice(store, 'user-1')).toBe('acme');
    expect(readChoice(store, 'user-2')).toBeNull();
    writeChoice(store, 'user-1', personal);
    expect(readChoice(store, 'user-1')).toBeNull();
    expect(store.map.size).toBe(0);
  });

  it('a storage that refuses (private mode) or is missing changes nothing and throws nothing', () => {
    const refusing: KeyValueStore = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => {
        throw new Error('SecurityError');
      },
    };
    expect(readChoice(refusing, 'user-1')).toBeNull();
    expect(() => writeChoice(refusing, 'user-1', acme)).not.toThrow();
    expect(readChoice(undefined, 'user-1')).toBeNull();
  });
});
