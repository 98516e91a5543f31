import { describe, expect, it } from 'vitest';
import type { KeyValueStore } from './browser-storage';
import { captureInvitationLink, forgetInvitation, INVITATION_KEY, pendingInvitation, tokenFromInvitationHash } from './invitation-token';

const TOKEN = 'Abc_def-0123456789abcdefghijklmnopqrstuvwxyz';

const memory = (): KeyValueStore & { map: Map<string, string> } => {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
};

describe('the invitation link /dashboard/#/invitations/<token>', () => {
  it('reads the token from the fragment only in that exact form', () => {
    expect(tokenFromInvitationHash(`#/invitations/${TOKEN}`)).toBe(TOKEN);
    expect(tokenFromInvitationHash(`#/invitations/${TOKEN}/`)).toBe(TOKEN);
    expect(tokenFromInvitationHash(`#token=${TOKEN}`)).toBeNull();
    expect(tokenFromInvitationHash('#/invitations/')).toBeNull();
    expect(tokenFromInvitationHash('#/invitations/short')).toBeNull();
    expect(tokenFromInvitationHash(`#/invitations/${TOKEN}<script>`)).toBeNull();
    expect(tokenFromInvitationHash('')).toBeNull();
  });

  it('keeps the token for this tab and replaces the address with the invitation page, without the token', () => {
    const store = memory();
    const replaced: string[] = [];
    const history = { replaceState: (_d: unknown, _t: string, url?: string | URL | null) => void replaced.push(String(url)) };
    expect(captureInvitationLink({ hash: `#/invitations/${TOKEN}` }, history, store, '/dashboard')).toBe(true);
    expect(store.map.get(INVITATION_KEY)).toBe(TOKEN);
    expect(replaced).toEqual(['/dashboard/invitation']);
    expect(pendingInvitation(store)).toBe(TOKEN);
    forgetInvitation(store);
    expect(pendingInvitation(store)).toBeNull();
  });

  it('any other address is left alone', () => {
    const store = memory();
    const replaced: string[] = [];
    expect(captureInvitationLink({ hash: `#token=${TOKEN}` }, { replaceState: () => void replaced.push('x') }, store, '/dashboard')).toBe(false);
    expect(replaced).toEqual([]);
    expect(store.map.size).toBe(0);
  });
});
