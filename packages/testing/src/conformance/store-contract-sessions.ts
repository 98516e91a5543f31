import { randomBytes, randomUUID } from 'node:crypto';
import type { AccountDirectory, SessionStore, TransactionScope } from '@gengate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What a dashboard store implementation hands the suite. */
export interface DashboardStoresHarness {
  /** The ordinary stores over the same data (users, keys, tasks, ledger). */
  readonly scope: TransactionScope;
  readonly sessions: SessionStore;
  readonly directory: AccountDirectory;
  cleanup(): Promise<void>;
}

const hash = () => randomBytes(32).toString('hex');
const minutes = (n: number, from = new Date()) => new Date(from.getTime() + n * 60_000);

/**
 * The contract of the dashboard's stores (SessionStore, AccountDirectory): single-use, expiring sign-in
 * tokens, sessions that end at their expiry, the purge, roles and the operator's views.
 */
export function describeDashboardStoresConformance(name: string, factory: () => Promise<DashboardStoresHarness>): void {
  describe(`dashboard store conformance: ${name}`, () => {
    let h: DashboardStoresHarness;
    beforeAll(async () => {
      h = await factory();
    });
    afterAll(async () => {
      await h?.cleanup();
    });

    async function newUser(email = `dash-${randomBytes(5).toString('hex')}@example.com`) {
      const user = await h.scope.users.insert({ id: randomUUID(), email });
      await h.scope.ledger.openAccount(user.id);
      return user;
    }

    it('a sign-in token is consumed once, and never after it expired', async () => {
      const now = new Date();
      const live = hash();
      const expired = hash();
      await h.sessions.insertSignInToken({ tokenHash: live, email: 'Someone@Example.com', expiresAt: minutes(15, now), browserHash: null });
      await h.sessions.insertSignInToken({ tokenHash: expired, email: 'someone@example.com', expiresAt: minutes(-1, now), browserHash: null });
      expect(await h.sessions.consumeSignInToken(expired, now)).toBeNull();
      expect(await h.sessions.consumeSignInToken(hash(), now)).toBeNull();
      expect(await h.sessions.consumeSignInToken(live, now)).toEqual({ email: 'someone@example.com' });
      expect(await h.sessions.consumeSignInToken(live, now)).toBeNull();
    });

    it('of two concurrent uses of one token exactly one succeeds', async () => {
      const token = hash();
      await h.sessions.insertSignInToken({ tokenHash: token, email: 'race@example.com', expiresAt: minutes(15), browserHash: null });
      const results = await Promise.all([h.sessions.consumeSignInToken(token, new Date()), h.sessions.consumeSignInToken(token, new Date())]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    it('findSignInToken shows an unused, unexpired token with its browser binding, without using it; deleteSignInToken removes it', async () => {
      const now = new Date();
      const [bound, unbound] = [hash(), hash()];
      await h.sessions.insertSignInToken({ tokenHash: bound, email: 'Find@Example.com', expiresAt: minutes(15, now), browserHash: 'b'.repeat(64) });
      await h.sessions.insertSignInToken({ tokenHash: unbound, email: 'find@example.com', expiresAt: minutes(15, now), browserHash: null });
      expect(await h.sessions.findSignInToken(bound, now)).toEqual({ email: 'find@example.com', browserHash: 'b'.repeat(64) });
      expect(await h.sessions.findSignInToken(bound, now)).toEqual({ email: 'find@example.com', browserHash: 'b'.repeat(64) });
      expect(await h.sessions.findSignInToken(bound, minutes(16, now))).toBeNull();
      expect(await h.sessions.consumeSignInToken(bound, now)).toEqual({ email: 'find@example.com' });
      expect(await h.sessions.findSignInToken(bound, now)).toBeNull();
      await h.sessions.deleteSignInToken(unbound);
      expect(await h.sessions.findSignInToken(unbound, now)).toBeNull();
      expect(await h.sessions.consumeSignInToken(unbound, now)).toBeNull();
    });

    it('reserveSignInLink: at most max sends per address in a sliding window, exact under concurrency, release gives one back, the purge keeps the count', async () => {
      const email = `quota-${randomBytes(4).toString('hex')}@example.com`;
      const t0 = new Date();
      const windowOf = (at: Date) => minutes(-60, at);
      const results = await Promise.all(Array.from({ length: 30 }, () => h.sessions.reserveSignInLink(email, t0, windowOf(t0), 5)));
      expect(results.filter(Boolean)).toHaveLength(5);
      // Case-insensitive: the same address.
      expect(await h.sessions.reserveSignInLink(email.toUpperCase(), t0, windowOf(t0), 5)).toBe(false);
      await h.sessions.releaseSignInLink(email, t0);
      expect(await h.sessions.reserveSignInLink(email, minutes(1, t0), windowOf(minutes(1, t0)), 5)).toBe(true);
      expect(await h.sessions.reserveSignInLink(email, minutes(2, t0), windowOf(minutes(2, t0)), 5)).toBe(false);
      // A purge 30 minutes on leaves the count alone.
      await h.sessions.purgeExpired(minutes(30, t0), windowOf(minutes(30, t0)));
      expect(await h.sessions.reserveSignInLink(email, minutes(30, t0), windowOf(minutes(30, t0)), 5)).toBe(false);
      // 60.5 minutes on, the four sends at t0 are out of the window; the one at t0+1 min is not.
      const later = minutes(60.5, t0);
      const again = await Promise.all(Array.from({ length: 10 }, () => h.sessions.reserveSignInLink(email, later, windowOf(later), 5)));
      expect(again.filter(Boolean)).toHaveLength(4);
      // Once nothing was sent in the window, the purge may drop the address's count.
      await h.sessions.purgeExpired(minutes(200, t0), windowOf(minutes(200, t0)));
      expect(await h.sessions.reserveSignInLink(email, minutes(200, t0), windowOf(minutes(200, t0)), 1)).toBe(true);
    });

    it('a session is found until it expires, and not after it is deleted', async () => {
      const user = await newUser();
      const idHash = hash();
      const now = new Date();
      const s = await h.sessions.insertSession({ idHash, userId: user.id, expiresAt: minutes(60, now) });
      expect(s).toMatchObject({ idHash, userId: user.id });
      expect(s.createdAt).toBeInstanceOf(Date);
      expect((await h.sessions.findSession(idHash, now))?.userId).toBe(user.id);
      expect(await h.sessions.findSession(idHash, minutes(61, now))).toBeNull();
      expect(await h.sessions.findSession(hash(), now)).toBeNull();
      expect(await h.sessions.deleteSession(idHash)).toBe(true);
      expect(await h.sessions.deleteSession(idHash)).toBe(false);
      expect(await h.sessions.findSession(idHash, now)).toBeNull();
    });

    it('purgeExpired deletes expired sessions and tokens and keeps live ones', async () => {
      const user = await newUser();
      const now = new Date();
      const [old, live] = [hash(), hash()];
      await h.sessions.insertSession({ idHash: old, userId: user.id, expiresAt: minutes(-5, now) });
      await h.sessions.insertSession({ idHash: live, userId: user.id, expiresAt: minutes(5, now) });
      const [oldToken, liveToken] = [hash(), hash()];
      await h.sessions.insertSignInToken({ tokenHash: oldToken, email: 'p@example.com', expiresAt: minutes(-5, now), browserHash: null });
      await h.sessions.insertSignInToken({ tokenHash: liveToken, email: 'p@example.com', expiresAt: minutes(5, now), browserHash: null });
      const purged = await h.sessions.purgeExpired(now, minutes(-60, now));
      expect(purged.sessions).toBeGreaterThanOrEqual(1);
      expect(purged.tokens).toBeGreaterThanOrEqual(1);
      expect(await h.sessions.findSession(live, now)).not.toBeNull();
      expect(await h.sessions.deleteSession(old)).toBe(false);
      expect(await h.sessions.consumeSignInToken(liveToken, now)).toEqual({ email: 'p@example.com' });
    });

    it('roles: every user starts as user; setRole by e-mail (case-insensitive); unknown users are null', async () => {
      const user = await newUser();
      expect(await h.directory.roleOf(user.id)).toBe('user');
      expect(await h.directory.roleOf(randomUUID())).toBeNull();
      expect(await h.directory.setRole(user.email.toUpperCase(), 'operator')).toEqual({ id: user.id, email: user.email, role: 'operator' });
      expect(await h.directory.roleOf(user.id)).toBe('operator');
      expect(await h.directory.setRole('nobody-here@example.com', 'operator')).toBeNull();
      await h.directory.setRole(user.email, 'user');
      expect(await h.directory.roleOf(user.id)).toBe('user');
    });

    it('searchUsers and findUser summarise balance, grants, keys and tasks', async () => {
      const tag = randomBytes(4).toString('hex');
      const a = await newUser(`alpha-${tag}@example.com`);
      const b = await newUser(`beta-${tag}@example.com`);
      await h.scope.ledger.record({ userId: a.id, creditsMicro: 5_000_000, amountMicroUsd: 0, paymentMethod: 'grant', status: 'completed', description: 'g' });
      await h.scope.ledger.record({ userId: a.id, creditsMicro: 1_000_000, amountMicroUsd: 10_000, paymentMethod: 'manual', status: 'completed', description: 'p' });
      const key = { userId: a.id, name: 'k', mask: 'gg_live_…abcd', limits: { perMinute: null, perHour: null, perDay: null }, ipWhitelist: [] };
      await h.scope.keys.insert({ ...key, id: randomUUID(), secretHash: hash() });
      const revoked = await h.scope.keys.insert({ ...key, id: randomUUID(), secretHash: hash() });
      await h.scope.keys.revoke(revoked.id, a.id);
      await h.scope.tasks.insert({
        id: randomUUID(),
        userId: a.id,
        apiKeyId: null,
        modelId: 'conformance.image',
        modality: 'image',
        request: { prompt: 'x' },
        callbackUrl: null,
        quotedMicro: 0,
        quotedCostMicro: 0,
        admitted: true,
      });
      const found = await h.directory.searchUsers(tag.toUpperCase(), 1, 10);
      expect(found.total).toBe(2);
      expect(found.items.map((u) => u.id).sort()).toEqual([a.id, b.id].sort());
      expect(await h.directory.findUser(a.id)).toMatchObject({
        id: a.id,
        email: a.email,
        role: 'user',
        balanceMicro: 6_000_000,
        heldMicro: 0,
        grantedMicro: 5_000_000,
        activeKeys: 1,
        revokedKeys: 1,
        tasks: 1,
      });
      expect((await h.directory.searchUsers(`alpha-${tag}`, 1, 10)).items.map((u) => u.id)).toEqual([a.id]);
      expect((await h.directory.searchUsers(tag, 2, 1)).items).toHaveLength(1);
      expect(await h.directory.findUser(randomUUID())).toBeNull();
      expect((await h.directory.searchUsers('%', 1, 10)).total).toBe(0);
    });

    it('recentFailures groups failed tasks by model since a moment; unfinishedTaskCounts counts by modality and status', async () => {
      const user = await newUser();
      const modelId = `conformance.fail-${randomBytes(3).toString('hex')}`;
      const base = { userId: user.id, apiKeyId: null, modality: 'video' as const, request: { prompt: 'x' }, callbackUrl: null, quotedMicro: 0, quotedCostMicro: 0, admitted: true };
      const since = minutes(-1);
      for (const message of ['first', 'second']) {
        const t = await h.scope.tasks.insert({ ...base, id: randomUUID(), modelId });
        await h.scope.tasks.markFail(t.id, message, new Date(Date.now() + (message === 'second' ? 1_000 : 0)));
      }
      const before = (await h.directory.unfinishedTaskCounts()).find((c) => c.modality === 'video' && c.status === 'waiting' && c.admitted === false)?.count ?? 0;
      await h.scope.tasks.insert({ ...base, id: randomUUID(), modelId, admitted: false });
      const groups = await h.directory.recentFailures(since, 100);
      expect(groups.find((g) => g.modelId === modelId)).toMatchObject({ modelId, failures: 2, lastMessage: 'second' });
      expect((await h.directory.recentFailures(minutes(5), 100)).find((g) => g.modelId === modelId)).toBeUndefined();
      const after = (await h.directory.unfinishedTaskCounts()).find((c) => c.modality === 'video' && c.status === 'waiting' && c.admitted === false)?.count ?? 0;
      expect(after).toBe(before + 1);
    });
  });
}
