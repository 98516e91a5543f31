import type { AuthContext } from '@gengate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgHttpApp, type PgHttpApp } from './support/pg-http-app.js';

/**
 * Migration 029: a task's end that does not lock the account row appends its key spend change to
 * key_spend_pending instead of updating the key's key_spend row (which the user's submissions update); the
 * spend is the row plus its pending rows (key_spend_totals), and the next submission folds them (033: once per batch).
 * A sandbox pixel image is quoted and charged 2 credits.
 */
describe('key spend off a task end (PostgreSQL)', () => {
  let app: PgHttpApp;
  afterAll(async () => {
    await app?.close();
  });

  it("an end leaves key_spend's row alone and appends its change; the totals stay exact; the next submission folds it", { timeout: 60_000 }, async () => {
    app = await openPgHttpApp({ withQueue: true });
    const g = app.gengate;
    const owner = await g.admin.createUser({ email: `pending-${Math.random().toString(36).slice(2)}@example.com`, credits: 1_000 });
    const ownerAuth: AuthContext = await g.authenticate.execute(owner.api_key, '127.0.0.1');
    const created = await g.keys.create(ownerAuth, { name: 'pending' });
    await g.keys.update(ownerAuth, created.id, { spend_limit: 100, budget_period: 'day' });
    const keyAuth: AuthContext = await g.authenticate.execute(created.key, '127.0.0.1');
    const submit = () => g.submitRun.execute(keyAuth, 'sandbox.pixel-image', { prompt: 'pending', image_params: { width: 64, height: 64 } }).then((r) => r.task_id);
    const spend = async () =>
      (
        await app.pool.query<{ row_held: string; row_charged: string; held: string; charged: string; pending: number }>(
          `select s.held_micro as row_held, s.charged_micro as row_charged, t.held_micro as held, t.charged_micro as charged,
                  (select count(*)::int from gengate.key_spend_pending p where p.api_key_id = s.api_key_id) as pending
           from gengate.key_spend s join gengate.key_spend_totals t using (api_key_id, period_start) where s.api_key_id = $1`,
          [created.id],
        )
      ).rows.map((r) => ({ rowHeld: Number(r.row_held), rowCharged: Number(r.row_charged), held: Number(r.held), charged: Number(r.charged), pending: r.pending }));

    // The owner is a member of their personal organization: with a member limit, the member's spend row too.
    await app.pool.query(`update gengate.organization_members set spend_limit_micro = 100000000, budget_period = 'day' where organization_id = $1 and user_id = $1`, [ownerAuth.userId]);
    const memberSpend = async () =>
      (
        await app.pool.query<{ row_held: string; row_charged: string; held: string; charged: string; pending: number }>(
          `select s.held_micro as row_held, s.charged_micro as row_charged, t.held_micro as held, t.charged_micro as charged,
                  (select count(*)::int from gengate.member_spend_pending p where p.organization_id = s.organization_id and p.member_id = s.member_id) as pending
           from gengate.member_spend s join gengate.member_spend_totals t using (organization_id, member_id, period_start) where s.organization_id = $1 and s.member_id = $1`,
          [ownerAuth.userId],
        )
      ).rows.map((r) => ({ rowHeld: Number(r.row_held), rowCharged: Number(r.row_charged), held: Number(r.held), charged: Number(r.charged), pending: r.pending }));

    const first = await submit();
    expect(await spend()).toEqual([{ rowHeld: 2_000_000, rowCharged: 0, held: 2_000_000, charged: 0, pending: 0 }]);
    expect(await memberSpend()).toEqual([{ rowHeld: 2_000_000, rowCharged: 0, held: 2_000_000, charged: 0, pending: 0 }]);
    expect(await g.executeTask.runGeneration(first, new AbortController().signal)).toBe('success');
    // The end's release and charge are a pending row (one per spend row for an end's batch); the row still
    // says what the submission wrote.
    expect(await spend()).toEqual([{ rowHeld: 2_000_000, rowCharged: 0, held: 0, charged: 2_000_000, pending: 1 }]);
    expect(await memberSpend()).toEqual([{ rowHeld: 2_000_000, rowCharged: 0, held: 0, charged: 2_000_000, pending: 1 }]);
    expect((await g.keys.update(ownerAuth, created.id, { name: 'pending, read' })).spent).toBe(2);

    await submit();
    // The next submission folded them into the row.
    expect(await spend()).toEqual([{ rowHeld: 2_000_000, rowCharged: 2_000_000, held: 2_000_000, charged: 2_000_000, pending: 0 }]);
    expect(await memberSpend()).toEqual([{ rowHeld: 2_000_000, rowCharged: 2_000_000, held: 2_000_000, charged: 2_000_000, pending: 0 }]);
    expect((await g.keys.update(ownerAuth, created.id, { name: 'pending, folded' })).spent).toBe(4);
  });
});
