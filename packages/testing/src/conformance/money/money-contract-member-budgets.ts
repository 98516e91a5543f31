import { isGatewayError, TOKENS, type AuthContext, type BudgetPeriod, type MemberView } from '@gengate/core';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { MoneyDriver } from './money-driver.js';
import type { MoneyImplementationConfig } from './money-harness.js';
import { CONTRACT_MODEL, quoteOf } from './money-model.js';

type Open = (scheduling?: Partial<MoneyImplementationConfig['scheduling']>) => Promise<MoneyDriver>;

const CREDIT = 1_000_000;

/** Sets a member's spend limit (credits; null: none) and period in an organization, through the OrganizationStore. */
async function setLimit(d: MoneyDriver, organizationId: string, memberId: string, credits: number | null, period: BudgetPeriod): Promise<void> {
  const changed = await d.impl.gengate.container
    .get(TOKENS.OrganizationStore)
    .updateMember(organizationId, memberId, { spendLimitMicro: credits === null ? null : credits * CREDIT, budgetPeriod: period });
  expect(changed.outcome).toBe('ok');
}

/** The Member object's spend figures (GET /organizations/{id}/members, as the member themselves). */
async function figures(d: MoneyDriver, organizationId: string, memberId: string): Promise<Pick<MemberView, 'spent' | 'remaining' | 'resets_at'>> {
  const { data } = await d.impl.gengate.organizations.listMembers({ userId: organizationId, memberId, apiKeyId: null }, organizationId);
  const m = data.find((x) => x.user_id === memberId);
  if (!m) throw new Error(`${memberId} is no member of ${organizationId}`);
  return { spent: m.spent, remaining: m.remaining, resets_at: m.resets_at };
}

/** One image submission as `auth`: `accepted`, or `error <type>`. */
async function submitAs(d: MoneyDriver, auth: AuthContext, images = 1): Promise<string> {
  try {
    await d.impl.gengate.submitRun.execute(auth, CONTRACT_MODEL.id, { prompt: `m${images}`, image_params: { n: images } });
    return 'accepted';
  } catch (err) {
    if (isGatewayError(err)) return `error ${err.type}`;
    throw err;
  }
}

/**
 * A new (non-personal) organization owned by `owner`, with `credits` granted to it, and `member` (when
 * given) joined through an accepted invitation with the role `member`.
 */
async function organizationWith(d: MoneyDriver, owner: string, credits: number, member?: string): Promise<string> {
  const g = d.impl.gengate;
  const orgs = g.container.get(TOKENS.OrganizationStore);
  const at = g.container.get(TOKENS.Clock).now();
  const org = await orgs.create({ id: randomUUID(), name: `org ${Math.random().toString(36).slice(2)}`, ownerUserId: owner, at });
  await g.container.get(TOKENS.UnitOfWork).run(async (tx) => {
    await tx.ledger.openAccount(org.id);
    await tx.ledger.record({ userId: org.id, creditsMicro: credits * CREDIT, amountMicroUsd: 0, paymentMethod: 'grant', status: 'completed', description: 'contract grant' });
  });
  if (member !== undefined) {
    const user = await g.container.get(TOKENS.Stores).users.findById(member);
    if (!user) throw new Error(`no user ${member}`);
    const invitation = await orgs.createInvitation({
      id: randomUUID(),
      organizationId: org.id,
      email: user.email,
      role: 'member',
      tokenHash: randomUUID().replaceAll('-', ''),
      invitedBy: owner,
      createdAt: at,
      expiresAt: new Date(at.getTime() + 86_400_000),
      acceptedAt: null,
      acceptedBy: null,
      revokedAt: null,
    });
    expect((await orgs.acceptInvitation(invitation.id, member, at)).outcome).toBe('accepted');
  }
  return org.id;
}

/**
 * Member spend limits (issue 22, docs/organizations.md "Member spend limits"), by example (called inside
 * describeMoneyContract, whose `open` gives each driver a MoneyClock at 2026-11-26T10:00Z, a Thursday):
 * the limit counts held + charged of the member's submissions of the period over all their keys, the
 * key's own budget is checked first, periods reset on UTC boundaries, and each organization of a person
 * has its own limit. A refusal writes nothing.
 */
export function describeMemberBudgetContract(open: Open): void {
  it('200 concurrent submissions by one member over 3 keys against a limit of exactly 50 quotes: 50 accepted, 150 member_budget_exceeded', async () => {
    const d = await open({ maxQueuedPerUser: 1_000 });
    const u = await d.addUser(1_000);
    const me = d.userId(u);
    const owner = d.authOf(u);
    const keys: AuthContext[] = [];
    for (const name of ['one', 'two', 'three']) {
      const { key } = await d.impl.gengate.keys.create(owner, { name });
      keys.push(await d.impl.gengate.authenticate.execute(key, '127.0.0.1'));
    }
    await setLimit(d, me, me, 100, 'month');
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => submitAs(d, keys[i % 3] as AuthContext)));
    expect(answers.filter((a) => a === 'accepted')).toHaveLength(50);
    expect(answers.filter((a) => a === 'error member_budget_exceeded')).toHaveLength(150);
    const s = (await d.state())[u];
    expect(s?.tasks).toHaveLength(50);
    expect(s?.heldMicro).toBe(50 * quoteOf(1));
    expect(await figures(d, me, me)).toEqual({ spent: 100, remaining: 0, resets_at: '2026-12-01T00:00:00.000Z' });
  });

  it('counts held + charged of the period, frees what a smaller charge or a failure leaves, and accepts again in the next period', async () => {
    const d = await open();
    const u = await d.addUser(100);
    const me = d.userId(u);
    await setLimit(d, me, me, 6, 'day');
    const submit = { kind: 'submit', user: 0, images: 1, key: null, callback: false } as const;
    for (const expected of ['accepted t0', 'accepted t1', 'accepted t2']) expect(await d.run(submit)).toBe(expected);
    expect(await d.run(submit)).toBe('error member_budget_exceeded');
    expect(await figures(d, me, me)).toEqual({ spent: 6, remaining: 0, resets_at: '2026-11-27T00:00:00.000Z' });
    // A charge of half the hold frees 1 credit: still not 2.
    await d.run({ kind: 'start', pick: 0 });
    expect(await d.run({ kind: 'succeed', pick: 0, chargePermille: 500 })).toBe('succeeded');
    expect(await figures(d, me, me)).toMatchObject({ spent: 5, remaining: 1 });
    expect(await d.run(submit)).toBe('error member_budget_exceeded');
    // A failed task frees its whole hold.
    expect(await d.run({ kind: 'fail', pick: 1 })).toBe('failed');
    expect(await figures(d, me, me)).toMatchObject({ spent: 3, remaining: 3 });
    expect(await d.run(submit)).toBe('accepted t3');
    expect((await d.state())[u]?.tasks).toHaveLength(4);
    // Midnight UTC starts a new period; the open hold of the last one does not count in it.
    await d.run({ kind: 'advance', hours: 14 });
    expect(await figures(d, me, me)).toEqual({ spent: 0, remaining: 6, resets_at: '2026-11-28T00:00:00.000Z' });
    expect(await d.run({ ...submit, images: 3 })).toBe('accepted t4');
    expect(await d.run(submit)).toBe('error member_budget_exceeded');
  });

  it("checks the key's budget first: the tighter one refuses", async () => {
    const d = await open({ maxQueuedPerUser: 10 });
    const u = await d.addUser(100);
    const me = d.userId(u);
    const submit = { kind: 'submit', user: 0, images: 1, key: null, callback: false } as const;
    await setLimit(d, me, me, 6, 'week');
    expect(await d.run({ kind: 'budget', user: 0, limitCredits: 4, period: 'day', maxConcurrent: null, softPercent: null })).toBe('budget 4 per day, spent 0');
    expect(await d.run(submit)).toBe('accepted t0');
    expect(await d.run(submit)).toBe('accepted t1');
    expect(await d.run(submit)).toBe('error key_budget_exceeded');
    // The key's day ends; the member's week goes on: 4 of 6.
    await d.run({ kind: 'advance', hours: 14 });
    expect(await d.run(submit)).toBe('accepted t2');
    expect(await d.run(submit)).toBe('error member_budget_exceeded');
    expect(await figures(d, me, me)).toEqual({ spent: 6, remaining: 0, resets_at: '2026-11-30T00:00:00.000Z' });
    // Both exhausted (the key lowered to the 2 it spent today): the key's refusal comes first.
    await d.run({ kind: 'budget', user: 0, limitCredits: 2, period: 'day', maxConcurrent: null, softPercent: null });
    expect(await d.run(submit)).toBe('error key_budget_exceeded');
    // Raised, the member's limit takes effect at once; the key's is lifted.
    await d.run({ kind: 'budget', user: 0, limitCredits: null, period: 'none', maxConcurrent: null, softPercent: null });
    await setLimit(d, me, me, 8, 'week');
    expect(await d.run(submit)).toBe('accepted t3');
    expect((await d.state())[u]?.tasks).toHaveLength(4);
  });

  it("a person in two organizations has two separate limits: one organization's limit does not touch the other", async () => {
    const d = await open({ maxQueuedPerUser: 10 });
    const owner = d.userId(await d.addUser(100));
    const person = await d.addUser(100);
    const me = d.userId(person);
    const team = await organizationWith(d, owner, 100, me);
    const inTeam: AuthContext = { userId: team, memberId: me, apiKeyId: null };
    const personal = d.authOf(person);
    await setLimit(d, team, me, 4, 'month');
    expect(await submitAs(d, inTeam, 2)).toBe('accepted');
    expect(await submitAs(d, inTeam)).toBe('error member_budget_exceeded');
    // The personal organization has no limit: its submissions go on, and do not count in the team.
    for (let i = 0; i < 5; i++) expect(await submitAs(d, personal)).toBe('accepted');
    expect(await figures(d, team, me)).toEqual({ spent: 4, remaining: 0, resets_at: '2026-12-01T00:00:00.000Z' });
    // A personal organization keeps its member's spend only while a limit is set (its hot path writes no
    // member_spend row): without one, nothing is counted.
    expect(await figures(d, me, me)).toEqual({ spent: 0, remaining: null, resets_at: '2026-12-01T00:00:00.000Z' });
    // The owner of the team is not limited by the member's limit.
    expect(await submitAs(d, { userId: team, memberId: owner, apiKeyId: null }, 3)).toBe('accepted');
    expect(await figures(d, team, owner)).toMatchObject({ spent: 6, remaining: null });
    // A limit in the personal organization counts from when it is set, and does not touch the team either.
    await setLimit(d, me, me, 4, 'month');
    expect(await submitAs(d, personal, 2)).toBe('accepted');
    expect(await submitAs(d, personal)).toBe('error member_budget_exceeded');
    expect(await figures(d, me, me)).toEqual({ spent: 4, remaining: 0, resets_at: '2026-12-01T00:00:00.000Z' });
    await setLimit(d, team, me, 6, 'month');
    expect(await submitAs(d, inTeam)).toBe('accepted');
    // The team's tasks are the team's (its balance held them), each recording its member.
    const tasks = await d.impl.gengate.container.get(TOKENS.Stores).tasks.listForUser(team, {}, 1, 50);
    expect(tasks.items.map((t) => t.memberId).sort()).toEqual([me, me, owner].sort());
  });
}
