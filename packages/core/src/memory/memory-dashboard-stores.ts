import type { Page } from '../ports/stores.js';
import type { AccountDirectory, FailureGroup, TaskCount, UserRole, UserSummary } from '../services/operators/account-directory.js';
import type { SessionRecord, SessionStore } from '../services/sessions/session-store.js';
import type { MemoryDatabase } from './memory-database.js';

/** Sign-in tokens and sessions in memory (tests and the memory fake). */
export class MemorySessionStore implements SessionStore {
  private readonly tokens = new Map<string, { email: string; expiresAt: Date; usedAt: Date | null; browserHash: string | null }>();
  private readonly sends = new Map<string, Date[]>();
  private readonly sessions = new Map<string, SessionRecord>();

  async insertSignInToken(t: { tokenHash: string; email: string; expiresAt: Date; browserHash: string | null }) {
    this.tokens.set(t.tokenHash, { email: t.email.toLowerCase(), expiresAt: t.expiresAt, usedAt: null, browserHash: t.browserHash });
  }
  async findSignInToken(tokenHash: string, now: Date) {
    const t = this.tokens.get(tokenHash);
    return t && !t.usedAt && t.expiresAt > now ? { email: t.email, browserHash: t.browserHash } : null;
  }
  async consumeSignInToken(tokenHash: string, now: Date) {
    const t = this.tokens.get(tokenHash);
    if (!t || t.usedAt || t.expiresAt <= now) return null;
    t.usedAt = now;
    return { email: t.email };
  }
  async deleteSignInToken(tokenHash: string) {
    this.tokens.delete(tokenHash);
  }
  // Synchronous between the read and the write: exact under concurrency within one process.
  async reserveSignInLink(email: string, now: Date, windowStart: Date, max: number) {
    const recent = (this.sends.get(email.toLowerCase()) ?? []).filter((t) => t > windowStart);
    if (recent.length >= max) return false;
    this.sends.set(email.toLowerCase(), [...recent, now]);
    return true;
  }
  async releaseSignInLink(email: string, at: Date) {
    const sent = this.sends.get(email.toLowerCase()) ?? [];
    const i = sent.findIndex((t) => t.getTime() === at.getTime());
    if (i >= 0) sent.splice(i, 1);
  }
  async insertSession(s: { idHash: string; userId: string; expiresAt: Date }) {
    const rec: SessionRecord = { ...s, createdAt: new Date() };
    this.sessions.set(s.idHash, rec);
    return rec;
  }
  async findSession(idHash: string, now: Date) {
    const s = this.sessions.get(idHash);
    return s && s.expiresAt > now ? s : null;
  }
  async deleteSession(idHash: string) {
    return this.sessions.delete(idHash);
  }
  async purgeExpired(now: Date, windowStart: Date) {
    let sessions = 0;
    let tokens = 0;
    for (const [k, s] of this.sessions) if (s.expiresAt <= now && this.sessions.delete(k)) sessions++;
    for (const [k, t] of this.tokens) if (t.expiresAt <= now && this.tokens.delete(k)) tokens++;
    for (const [k, sent] of this.sends) if (!sent.some((t) => t > windowStart)) this.sends.delete(k);
    return { sessions, tokens };
  }
}

/** Roles and operator views over the memory database. */
export class MemoryAccountDirectory implements AccountDirectory {
  private readonly roles = new Map<string, UserRole>();

  constructor(private readonly db: MemoryDatabase) {}

  async roleOf(userId: string) {
    return this.db.users.has(userId) ? (this.roles.get(userId) ?? 'user') : null;
  }
  async setRole(email: string, role: UserRole) {
    const user = [...this.db.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase());
    if (!user) return null;
    this.roles.set(user.id, role);
    return { id: user.id, email: user.email, role };
  }
  private summary(userId: string): UserSummary | null {
    const u = this.db.users.get(userId);
    if (!u) return null;
    const txs = this.db.transactions.filter((t) => t.userId === userId && t.status === 'completed');
    const keys = [...this.db.keys.values()].filter((k) => k.userId === userId);
    return {
      id: u.id,
      email: u.email,
      role: this.roles.get(u.id) ?? 'user',
      createdAt: u.createdAt,
      balanceMicro: txs.reduce((s, t) => s + t.creditsMicro, 0),
      heldMicro: [...this.db.holds.values()].filter((h) => h.userId === userId && h.state === 'held').reduce((s, h) => s + h.amountMicro, 0),
      grantedMicro: txs.filter((t) => t.paymentMethod === 'grant').reduce((s, t) => s + t.creditsMicro, 0),
      activeKeys: keys.filter((k) => !k.revokedAt).length,
      revokedKeys: keys.filter((k) => k.revokedAt).length,
      tasks: [...this.db.tasks.values()].filter((t) => t.userId === userId).length,
    };
  }
  async searchUsers(search: string, page: number, perPage: number): Promise<Page<UserSummary>> {
    const needle = search.toLowerCase();
    const all = [...this.db.users.values()]
      .filter((u) => u.email.toLowerCase().includes(needle) || u.id.includes(needle))
      .reverse()
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map((u) => this.summary(u.id) as UserSummary);
    return { items: all.slice((page - 1) * perPage, page * perPage), total: all.length };
  }
  async findUser(userId: string) {
    return this.summary(userId);
  }
  async recentFailures(since: Date, limit: number): Promise<readonly FailureGroup[]> {
    const groups = new Map<string, FailureGroup>();
    const failed = [...this.db.tasks.values()].filter((t) => t.status === 'fail' && t.finishedAt && t.finishedAt >= since);
    for (const t of failed.sort((a, b) => (a.finishedAt?.getTime() ?? 0) - (b.finishedAt?.getTime() ?? 0))) {
      const g = groups.get(t.modelId);
      groups.set(t.modelId, { modelId: t.modelId, failures: (g?.failures ?? 0) + 1, lastAt: t.finishedAt as Date, lastMessage: t.errorMessage ?? '' });
    }
    return [...groups.values()].sort((a, b) => b.failures - a.failures || a.modelId.localeCompare(b.modelId)).slice(0, limit);
  }
  async unfinishedTaskCounts(): Promise<readonly TaskCount[]> {
    const counts = new Map<string, TaskCount>();
    for (const t of this.db.tasks.values()) {
      if (t.status !== 'waiting' && t.status !== 'generating') continue;
      const admitted = t.status === 'waiting' ? t.admitted : null;
      const key = `${t.modality}/${t.status}/${String(admitted)}`;
      const c = counts.get(key);
      counts.set(key, { modality: t.modality, status: t.status, admitted, count: (c?.count ?? 0) + 1 });
    }
    return [...counts.values()];
  }
}
