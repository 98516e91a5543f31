import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, ApiError, setCsrfToken, setSessionLostHandler } from './api/client';
import type { SessionInfo } from './api/types';

interface SessionState {
  /** undefined while loading, null when signed out. */
  readonly session: SessionInfo | null | undefined;
  readonly loadError: string | null;
  signedIn(info: SessionInfo): void;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | null>(null);

  const signedIn = useCallback((info: SessionInfo) => {
    setCsrfToken(info.csrf_token);
    setSession(info);
  }, []);

  useEffect(() => {
    setSessionLostHandler(() => {
      setCsrfToken(null);
      setSession(null);
    });
    api<SessionInfo>('GET', '/dashboard/api/session').then(signedIn, (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) setSession(null);
      else {
        setLoadError(err instanceof Error ? err.message : String(err));
        setSession(null);
      }
    });
    return () => setSessionLostHandler(null);
  }, [signedIn]);

  const signOut = useCallback(async () => {
    await api('DELETE', '/dashboard/api/session');
    setCsrfToken(null);
    setSession(null);
  }, []);

  const value = useMemo(() => ({ session, loadError, signedIn, signOut }), [session, loadError, signedIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** The signed-in session (only inside pages that require one). */
export function useSignedIn(): SessionInfo {
  const { session } = useSession();
  if (!session) throw new Error('useSignedIn without a session');
  return session;
}
