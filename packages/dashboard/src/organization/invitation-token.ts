/**
 * The invitation link `<origin>/dashboard/#/invitations/<token>`: the token travels in the URL fragment
 * (never sent to a server), is moved into sessionStorage at once (so it survives the sign-in link's round
 * trip in this tab) and the address bar shows /dashboard/invitation without it.
 */
import type { KeyValueStore } from './browser-storage';

export const INVITATION_KEY = 'gengate.invitation';
export const INVITATION_PATH = '/invitation';

export function tokenFromInvitationHash(hash: string): string | null {
  const m = /^#\/invitations\/([A-Za-z0-9_-]{16,200})\/?$/.exec(hash);
  return m?.[1] ?? null;
}

export function pendingInvitation(store: KeyValueStore | undefined): string | null {
  try {
    return store?.getItem(INVITATION_KEY) ?? null;
  } catch {
    return null;
  }
}

export function keepInvitation(store: KeyValueStore | undefined, token: string): void {
  try {
    store?.setItem(INVITATION_KEY, token);
  } catch {
    // No storage: the invitation page still gets the token from the current navigation.
  }
}

export function forgetInvitation(store: KeyValueStore | undefined): void {
  try {
    store?.removeItem(INVITATION_KEY);
  } catch {
    // Nothing kept.
  }
}

/**
 * Run once before the router starts: an invitation link's token goes to sessionStorage and the URL
 * becomes the invitation page's, without the token. Returns whether the URL was an invitation link.
 */
export function captureInvitationLink(loc: Pick<Location, 'hash'>, history: Pick<History, 'replaceState'>, store: KeyValueStore | undefined, basename: string): boolean {
  const token = tokenFromInvitationHash(loc.hash);
  if (!token) return false;
  keepInvitation(store, token);
  history.replaceState(null, '', `${basename}${INVITATION_PATH}`);
  return true;
}
