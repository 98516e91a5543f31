/**
 * Which organization the dashboard acts on: the one chosen in the switcher (kept in localStorage per
 * signed-in person), as long as the person is still a member of it; otherwise the personal one.
 */
import type { Organization } from '../api/organization-types';
import type { KeyValueStore } from './browser-storage';

export const choiceKey = (userId: string): string => `gengate.organization.${userId}`;

/** Personal first, then by name (the API's own order, kept whatever order the list came in). */
export function sortOrganizations(list: readonly Organization[]): Organization[] {
  return [...list].sort((a, b) => Number(b.personal) - Number(a.personal) || a.name.localeCompare(b.name));
}

/** The stored choice if it is still in the list, else the personal organization, else the first. */
export function chooseOrganization(list: readonly Organization[], storedId: string | null): Organization | undefined {
  return list.find((o) => o.id === storedId) ?? list.find((o) => o.personal) ?? list[0];
}

export const organizationLabel = (o: Pick<Organization, 'name' | 'personal'>): string => (o.personal ? 'Personal' : o.name);

export function readChoice(store: KeyValueStore | undefined, userId: string): string | null {
  try {
    return store?.getItem(choiceKey(userId)) ?? null;
  } catch {
    return null;
  }
}

/** Remembers the choice; the personal organization is the default, so choosing it forgets the entry. */
export function writeChoice(store: KeyValueStore | undefined, userId: string, org: Pick<Organization, 'id' | 'personal'>): void {
  try {
    if (org.personal) store?.removeItem(choiceKey(userId));
    else store?.setItem(choiceKey(userId), org.id);
  } catch {
    // Storage refused (private mode, quota): the choice lasts until the page is reloaded.
  }
}
