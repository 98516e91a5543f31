import { SandboxAdapter } from '@gengate/adapters';
import type { AuthContext, Gengate } from '@gengate/core';
import { GatewayError } from '@gengate/core';
import { createMemoryGengate } from '@gengate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgHttpApp, type PgHttpApp } from './support/pg-http-app.js';

/**
 * A key's budget period change (migration 027's trigger on PostgreSQL; core's moveKeySpendIntoPeriod in the
 * memory stores): the new period counts what the key held and was charged for tasks submitted since the
 * new period's start, not zero. A sandbox pixel image is quoted and charged 2 credits. Tasks run through the
 * core's ExecuteTask as the worker would, one at a time (no queue).
 */
interface Store {
  readonly gengate: Gengate;
  /** Makes the task look submitted two days ago (before today's, this week's or this month's start… for `day`). */
  backdate(taskId: string): Promise<void>;
  /** PostgreSQL: the sum over the key's key_spend rows and their pending rows (key_spend_totals) (each hold counts in exactly one); memory: null. */
  keySpendTotal(keyId: string): Promise<number | null>;
  close(): Promise<void>;
}

const TWO_DAYS_MS = 2 * 86_400_000;

async function openMemory(): Promise<Store> {
  const m = createMemoryGengate({ adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 1 } })] });
  return {
    gengate: m.gengate,
    async backdate(taskId) {
      const t = m.db.tasks.get(taskId);
      if (t) m.db.tasks.set(taskId, { ...t, createdAt: new Date(t.createdAt.getTime() - TWO_DAYS_MS) });
    },
    keySpendTotal: async () => null,
    close: async () => undefined,
  };
}

async function openPostgres(): Promise<Store> {
  const app: PgHttpApp = await openPgHttpApp({ withQueue: true }); // submissions enqueue; no worker runs them
  return {
    gengate: app.gengate,
    async backdate(taskId) {
      await app.pool.query(`update gengate.holds set created_at = created_at - interval '2 days' where task_id = $1`, [taskId]);
      await app.pool.query(`update gengate.tasks set created_at = created_at - interval '2 days' where id = $1`, [taskId]);
    },
    async keySpendTotal(keyId) {
      const { rows } = await app.pool.query<{ n: string }>('select coalesce(sum(held_micro + charged_micro), 0) as n from gengate.key_spend_totals where api_key_id = $1', [keyId]);
      return Number(rows[0]?.n);
    },
    close: () => app.close(),
  };
}

for (const [name, open] of [
  ['memory', openMemory],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`a key's budget period change (${name})`, () => {
    const opened: Store[] = [];
    afterAll(async () => {
      for (const s of opened) await s.close();
    });

    async function setUp() {
      const s = await open();
      opened.push(s);
      const g = s.gengate;
      const owner = await g.admin.createUser({ email: `period-${Math.random().toString(36).slice(2)}@example.com`, credits: 100 });
      const ownerAuth: AuthContext = await g.authenticate.execute(owner.api_key, '127.0.0.1');
      const created = await g.keys.create(ownerAuth, { name: 'ci' });
      const keyAuth: AuthContext = await g.authenticate.execute(created.key, '127.0.0.1');
      const submit = async () => (await g.submitRun.execute(keyAuth, 'sandbox.pixel-image', { prompt: 'period', image_params: { width: 64, height: 64 } })).task_id;
      const settle = async (taskId: string) => expect(await g.executeTask.runGeneration(taskId, new AbortController().signal)).toBe('success');
      const patch = (body: object) => g.keys.update(ownerAuth, created.id, body);
      const refusal = async () => {
        try {
          await submit();
          return 'accepted';
        } catch (err) {
          return err instanceof GatewayError ? err.type : String(err);
        }
      };
      return { s, keyId: created.id, submit, settle, patch, refusal };
    }

    it('counts, in the new period, what the key held and was charged since it started', async () => {
      const { s, keyId, submit, settle, patch, refusal } = await setUp();
      await settle(await submit()); // charged 2
      const open = await submit(); // held 2
      // Under `none` the key spent 4; switched to a daily limit of 5, today's period has spent them (not 0).
      const daily = await patch({ spend_limit: 5, budget_period: 'day' });
      expect({ spent: daily.spent, remaining: daily.remaining }).toEqual({ spent: 4, remaining: 1 });
      expect(await refusal()).toBe('key_budget_exceeded');
      await settle(open);
      expect((await patch({ name: 'ci (daily)' })).spent).toBe(4);
      // Each hold still counts in exactly one period's row: the totals over the key's rows are unchanged.
      expect(await s.keySpendTotal(keyId)).toEqual(name === 'PostgreSQL' ? 4_000_000 : null);
      // Back to a monthly and a lifetime budget: the same tasks, the same spend.
      expect((await patch({ budget_period: 'month' })).spent).toBe(4);
      const lifetime = await patch({ spend_limit: 7, budget_period: 'none' });
      expect({ spent: lifetime.spent, remaining: lifetime.remaining }).toEqual({ spent: 4, remaining: 3 });
      expect(await refusal()).toBe('accepted');
      expect((await patch({ name: 'ci (lifetime)' })).spent).toBe(6);
      expect(await s.keySpendTotal(keyId)).toEqual(name === 'PostgreSQL' ? 6_000_000 : null);
    });

    it("leaves a task submitted before the new period's start in the period it counted in", async () => {
      const { s, keyId, submit, settle, patch } = await setUp();
      const old = await submit();
      await settle(old);
      await s.backdate(old);
      const open = await submit();
      const daily = await patch({ spend_limit: 10, budget_period: 'day' });
      expect(daily.spent).toBe(2); // today's open hold only
      await settle(open);
      expect((await patch({ name: 'after' })).spent).toBe(2);
      expect(await s.keySpendTotal(keyId)).toEqual(name === 'PostgreSQL' ? 4_000_000 : null);
      // Back to `none`: every task of the key's life counts again.
      expect((await patch({ budget_period: 'none' })).spent).toBe(4);
    });

    it('changes nothing when the period is set to the one it has', async () => {
      const { submit, patch } = await setUp();
      await patch({ spend_limit: 10, budget_period: 'week' });
      await submit();
      expect((await patch({ budget_period: 'week' })).spent).toBe(2);
    });
  });
}

describe("a key's budget period change under concurrent submissions (PostgreSQL)", () => {
  let app: PgHttpApp;
  afterAll(async () => {
    await app?.close();
  });

  it('keeps every key_spend row equal to its holds and charges, loses no hold and deadlocks nothing', { timeout: 60_000 }, async () => {
    app = await openPgHttpApp({ withQueue: true });
    const g = app.gengate;
    const owner = await g.admin.createUser({ email: `race-${Math.random().toString(36).slice(2)}@example.com`, credits: 1_000 });
    const ownerAuth: AuthContext = await g.authenticate.execute(owner.api_key, '127.0.0.1');
    const created = await g.keys.create(ownerAuth, { name: 'racer' });
    const keyAuth: AuthContext = await g.authenticate.execute(created.key, '127.0.0.1');
    const submit = () => g.submitRun.execute(keyAuth, 'sandbox.pixel-image', { prompt: 'race', image_params: { width: 64, height: 64 } }).then((r) => r.task_id);
    const settled = [await submit(), await submit()];
    for (const t of settled) expect(await g.executeTask.runGeneration(t, new AbortController().signal)).toBe('success');

    // 30 submissions at once, with the period switched back and forth among them.
    const periods = ['day', 'week', 'none', 'month', 'day'] as const;
    const answers = await Promise.all([
      ...Array.from({ length: 30 }, () => submit().then(() => 'accepted', (err: unknown) => (err instanceof GatewayError ? err.type : String(err)))),
      ...periods.map((budget_period) => g.keys.update(ownerAuth, created.id, { budget_period }).then(() => 'patched')),
    ]);
    expect(answers.filter((a) => a === 'patched')).toHaveLength(periods.length);
    expect(answers.filter((a) => a !== 'patched' && a !== 'accepted')).toEqual([]);

    const wrong = await app.pool.query(
      `select s.period_start, s.held_micro, coalesce(h.held, 0) as held, s.charged_micro, coalesce(c.charged, 0) as charged
       from gengate.key_spend_totals s
       left join (select key_period_start as p, sum(amount_micro) as held from gengate.holds where api_key_id = $1 and state = 'held' group by 1) h on h.p = s.period_start
       left join (select h.key_period_start as p, -sum(x.credits_micro) as charged from gengate.holds h
                  join gengate.transactions x on x.task_id = h.task_id and x.payment_method = 'usage' where h.api_key_id = $1 group by 1) c on c.p = s.period_start
       where s.api_key_id = $1 and (s.held_micro <> coalesce(h.held, 0) or s.charged_micro <> coalesce(c.charged, 0))`,
      [created.id],
    );
    expect(wrong.rows).toEqual([]);
    // Every hold of the key is stamped with a period that has a row; today's period (the key's now) counts all 32 tasks.
    const unstamped = await app.pool.query(
      `select count(*)::int as n from gengate.holds h left join gengate.key_spend s on s.api_key_id = h.api_key_id and s.period_start = h.key_period_start
       where h.api_key_id = $1 and s.api_key_id is null`,
      [created.id],
    );
    expect(unstamped.rows[0]).toEqual({ n: 0 });
    expect((await g.keys.update(ownerAuth, created.id, { name: 'racer, after' })).spent).toBe(64);
  });
});
