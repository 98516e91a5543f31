import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { api, setOrganization, setOrganizationLostHandler } from '../api/client';
import type { Organization } from '../api/organization-types';
import { useSession } from '../session';
import { chooseOrganization, readChoice, sortOrganizations, writeChoice } from './choice';
import { localStore } from './browser-storage';
import { capabilitiesOf, type Capabilities } from './permissions';

interface OrganizationState {
  /** The caller's organizations (personal first); undefined while loading. */
  readonly list: readonly Organization[] | undefined;
  /** The organization every /api/v1 request acts on; undefined while loading or if the list failed. */
  readonly current: Organization | undefined;
  readonly capabilities: Capabilities;
  /** Why the list could not be loaded (the dashboard then acts on the personal organization). */
  readonly error: unknown;
  /** True once the list was answered (or failed): the pages may load their data. */
  readonly ready: boolean;
  switchTo(id: string): void;
  /** Loads the list again (after creating, joining or leaving one); returns it. */
  reload(): Promise<readonly Organization[]>;
}

/** Without a list (not loaded, or an older gateway): what the personal organization's owner may use. */
const OWNER = capabilitiesOf('owner', true);

const OrganizationContext = createContext<OrganizationState | null>(null);

export function OrganizationProvider({ children }: { children: ReactNode }) {
  const { session } = useSession();
  const userId = session?.user.id ?? null;
  const [list, setList] = useState<readonly Organization[] | undefined>(undefined);
  const [currentId, setCurrentId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [ready, setReady] = useState(false);
  const userRef = useRef(userId);
  userRef.current = userId;
  // The latest list, for a switch right after a reload (before React has rendered the new state).
  const listRef = useRef<readonly Organization[]>([]);

  const choose = useCallback((orgs: readonly Organization[], preferred: string | null) => {
    const chosen = chooseOrganization(orgs, preferred);
    setOrganization(chosen?.id ?? null);
    setCurrentId(chosen?.id ?? null);
    return chosen;
  }, []);

  const reload = useCallback(async () => {
    const user = userRef.current;
    if (!user) return [];
    try {
      const orgs = sortOrganizations((await api<{ data: Organization[] }>('GET', '/api/v1/organizations')).data);
      if (userRef.current !== user) return orgs;
      listRef.current = orgs;
      setList(orgs);
      setError(null);
      choose(orgs, readChoice(localStore(), user));
      return orgs;
    } catch (err) {
      if (userRef.current === user) {
        setError(err);
        setOrganization(null);
        setCurrentId(null);
      }
      return [];
    } finally {
      if (userRef.current === user) setReady(true);
    }
  }, [choose]);

  useEffect(() => {
    listRef.current = [];
    setList(undefined);
    setCurrentId(null);
    setError(null);
    setReady(false);
    setOrganization(null);
    if (!userId) return;
    void reload();
  }, [userId, reload]);

  // The gateway no longer knows the chosen organization as ours (removed, or it was deleted): reload the
  // list, which falls back to the personal organization.
  useEffect(() => {
    setOrganizationLostHandler(() => {
      setOrganization(null);
      void reload();
    });
    return () => setOrganizationLostHandler(null);
  }, [reload]);

  const switchTo = useCallback(
    (id: string) => {
      const org = listRef.current.find((o) => o.id === id);
      if (!org || !userRef.current) return;
      writeChoice(localStore(), userRef.current, org);
      choose(listRef.current, org.id);
    },
    [choose],
  );

  const value = useMemo<OrganizationState>(() => {
    const current = list?.find((o) => o.id === currentId);
    return { list, current, capabilities: current ? capabilitiesOf(current.role, current.personal) : OWNER, error, ready, switchTo, reload };
  }, [list, currentId, error, ready, switchTo, reload]);
  return <OrganizationContext.Provider value={value}>{children}</OrganizationContext.Provider>;
}

export function useOrganization(): OrganizationState {
  const s = useContext(OrganizationContext);
  if (!s) throw new Error('useOrganization outside OrganizationProvider');
  return s;
}
