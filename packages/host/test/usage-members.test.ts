import { SandboxAdapter } from '@gengate/adapters';
import type { AuthContext, Gengate, MemberRole, UsageRowView } from '@gengate/core';
import { MemoryOrganizationStore } from '@gengate/core';
import { createMemoryGengate } from '@gengate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgHttpApp } from './support/pg-http-app.js';

/**
 * Usage per member (migration 027 on PostgreSQL, MemoryUsageReader in memory): GET /usage's `group_by=member`
 * and `member` filter, and a `member`'s answer forced to their own usage (docs/usage.md). One organization
 * (not personal) with an owner, an admin and a member; each submits through a session-like context
 * ({ userId: organization, memberId: person }). The submission does not record its member yet (another
 * change), so each task's member is set in the store before it ends, as that change will write it.
 */
interface Store {
  readonly gengate: Gengate;
  addMember(organizationId: string, userId: string, role: MemberRole): Promise<void>;
  setTaskMember(taskId: string, memberId: string): Promise<void>;
  close(): Promise<void>;
}

async function openMemory(): Promise<Store> {
  const m = createMemoryGengate({ adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 1 } })] });
  return {
    gengate: m.gengate,
    async addMember(organizationId, userId, role) {
      // Through the memory store's own invitation, accepted (the store, not the use case: no mailer here).
      const store = new MemoryOrganizationStore(m.db);
      const id = crypto.randomUUID();
      const at = new Date();
      const email = m.db.users.get(userId)?.email ?? '';
      await store.createInvitation({
        id, organizationId, email, role, tokenHash: id, invitedBy: organizationId, createdAt: at,
        expiresAt: new Date(at.getTime() + 3_600_000), acceptedAt: null, acceptedBy: null, revokedAt: null,
      });
      expect((await store.acceptInvitation(id, userId, at)).outcome).toBe('accepted');
    },
    async setTaskMember(taskId, memberId) {
      const t = m.db.tasks.get(taskId);
      const withMember = t && { ...t, memberId };
      if (withMember) m.db.tasks.set(taskId, withMember);
    },
    close: async () => undefined,
  };
}

async function openPostgres(): Promise<Store> {
  const app = await openPgHttpApp({ withQueue: true }); // submissions enqueue; no worker runs them
  return {
    gengate: app.gengate,
    async addMember(organizationId, userId, role) {
      await app.pool.query('insert into gengate.organization_members (organization_id, user_id, role) values ($1, $2, $3)', [organizationId, userId, role]);
    },
    async setTaskMember(taskId, memberId) {
      await app.pool.query('update gengate.tasks set member_id = $2 where id = $1', [taskId, memberId]);
    },
    close: () => app.close(),
  };
}

const tasksBy = (rows: readonly UsageRowView[]) => rows.map((r) => [r.member_email, r.tasks]);

for (const [name, open] of [
  ['memory', openMemory],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`usage per member (${name})`, () => {
    let s: Store;
    let org: string;
    const people: Record<'owner' | 'admin' | 'member', { id: string; email: string; auth: AuthContext }> = {} as never;
    afterAll(async () => {
      await s?.close();
    });

    it('groups by member with the e-mail, filters by member, and answers a member only their own usage', async () => {
      s = await open();
      const g = s.gengate;
      const suffix = Math.random().toString(36).slice(2);
      for (const role of ['owner', 'admin', 'member'] as const) {
        const email = `${role}-${suffix}@example.com`;
        const u = await g.admin.createUser({ email });
        people[role] = { id: u.user_id, email, auth: { userId: u.user_id, apiKeyId: null } };
      }
      org = (await g.organizations.create(people.owner.auth, { name: 'Video team' })).id;
      await s.addMember(org, people.admin.id, 'admin');
      await s.addMember(org, people.member.id, 'member');
      // The organization's balance: a manual top-up (100 credits), completed by the operator.
      await g.admin.completePurchase((await g.billing.topup({ userId: org, memberId: people.owner.id, apiKeyId: null }, { amount: 1 })).transaction_id);
      for (const role of ['owner', 'admin', 'member'] as const) people[role] = { ...people[role], auth: { userId: org, memberId: people[role].id, apiKeyId: null } };
      const run = async (role: 'owner' | 'admin' | 'member', model: string) => {
        const { task_id } = await g.submitRun.execute(people[role].auth, model, { prompt: `${role} runs` });
        await s.setTaskMember(task_id, people[role].id);
        await g.executeTask.runGeneration(task_id, new AbortController().signal);
      };
      await run('owner', 'sandbox.echo-chat');
      await run('admin', 'sandbox.pixel-image');
      await run('member', 'sandbox.pixel-image');
      await run('member', 'sandbox.always-fail');

      // The owner and the admin see every member, sorted by member id, with their e-mails.
      const expected = (['owner', 'admin', 'member'] as const)
        .map((r) => ({ id: people[r].id, email: people[r].email, tasks: r === 'member' ? 2 : 1 }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      for (const role of ['owner', 'admin'] as const) {
        const { report } = await g.usage.forCaller(people[role].auth, { group_by: 'member' });
        expect(report.group_by).toEqual(['member']);
        expect(report.data.map((r) => [r.member_id, r.member_email, r.tasks])).toEqual(expected.map((e) => [e.id, e.email, e.tasks]));
        expect(report.totals.tasks).toBe(4);
      }
      // The filter: one member's tasks, with any grouping.
      const members = await g.usage.forCaller(people.owner.auth, { group_by: 'model', member: people.member.id });
      expect(members.report.data.map((r) => [r.model, r.tasks, r.failures])).toEqual([
        ['sandbox.always-fail', 1, 1],
        ['sandbox.pixel-image', 1, 0],
      ]);
      // A member: their own usage only, whatever they ask for.
      const own = await g.usage.forCaller(people.member.auth, { group_by: 'member' });
      expect(tasksBy(own.report.data)).toEqual([[people.member.email, 2]]);
      const asked = await g.usage.forCaller(people.member.auth, { group_by: 'model', member: people.owner.id });
      expect(asked.report.totals.tasks).toBe(2);
      expect(asked.report.data.map((r) => r.model)).toEqual(['sandbox.always-fail', 'sandbox.pixel-image']);
      expect((await g.usage.forCaller(people.member.auth, {})).report.totals.tasks).toBe(2);
      // The members' personal organizations saw none of it.
      expect((await g.usage.forCaller({ userId: people.member.id, apiKeyId: null }, { group_by: 'member' })).report.data).toEqual([]);
    });
  });
}
