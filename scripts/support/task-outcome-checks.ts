import type pg from 'pg';
import { ledgerViolations } from '../../packages/host/test/support/ledger-invariant.js';

export type Check = (name: string, ok: boolean, detail?: string) => void;

/** Runs checks, printing PASS/FAIL lines, and writes the vitest-style JSON summary .ci/summarize.mjs adds up. */
export function checkList(): { check: Check; summary(): { numPassedTests: number; numFailedTests: number; testResults: [] }; failed(): number } {
  const checks: { name: string; ok: boolean }[] = [];
  return {
    check(name, ok, detail = '') {
      checks.push({ name, ok });
      console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` (${detail})` : ''}`);
    },
    summary: () => ({ numPassedTests: checks.filter((c) => c.ok).length, numFailedTests: checks.filter((c) => !c.ok).length, testResults: [] }),
    failed: () => checks.filter((c) => !c.ok).length,
  };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (polling the database) until no task is waiting or generating and every callback is delivered, or the time is up. */
export async function waitUntilSettled(client: pg.Client, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let reported = Date.now();
  for (;;) {
    const { rows } = await client.query<{ open: number; pending: number }>(
      `select (select count(*)::int from gengate.tasks where status in ('waiting', 'generating')) as open,
              (select count(*)::int from gengate.tasks t where t.callback_url is not null
                 and not exists (select 1 from gengate.callback_attempts a where a.task_id = t.id and a.delivered)) as pending`,
    );
    if ((rows[0]?.open ?? 0) === 0 && (rows[0]?.pending ?? 0) === 0) return;
    if (Date.now() > until) return;
    if (Date.now() - reported > 10_000) {
      reported = Date.now();
      const { rows: open } = await client.query<{ status: string; n: number; attempts: number }>(
        `select status, count(*)::int as n, max(attempts)::int as attempts from gengate.tasks where status in ('waiting', 'generating') group by status`,
      );
      console.log(`waiting for: ${open.map((r) => `${r.n} ${r.status} (attempts up to ${r.attempts})`).join(', ') || 'no task'}; ${rows[0]?.pending} callbacks`);
    }
    await pause(500);
  }
}

/**
 * The crash-safety outcome of a run (scripts/chaos.ts, scripts/chaos-cluster.ts): every task ended,
 * none charged twice, success charged once and fail never, no credit held, the ledger invariant, and every
 * callback delivered (in the database and at the receiver).
 */
export async function checkTaskOutcomes(client: pg.Client, databaseUrl: string, expectedTasks: number, delivered: ReadonlySet<string>, check: Check): Promise<void> {
  const one = async (sql: string) => (await client.query<{ n: number }>(sql)).rows[0]?.n ?? -1;
  const total = await one(`select count(*)::int as n from gengate.tasks`);
  const ended = await one(`select count(*)::int as n from gengate.tasks where status in ('success', 'fail')`);
  check('every task ended in success or fail', ended === expectedTasks && total === expectedTasks, `${ended} ended of ${total} tasks, ${expectedTasks} expected`);
  const twice = await one(`select count(*)::int as n from (select task_id from gengate.transactions where payment_method = 'usage' group by task_id having count(*) > 1) x`);
  check('no task charged twice', twice === 0, `${twice} tasks`);
  const wrong = await one(
    `select count(*)::int as n from gengate.tasks t where (t.status = 'success') <> exists (select 1 from gengate.transactions x where x.task_id = t.id and x.payment_method = 'usage')`,
  );
  check('success charged once, fail never', wrong === 0, `${wrong} mismatches`);
  const held = await one(`select count(*)::int as n from gengate.holds where state = 'held'`);
  check('no credits left held', held === 0, `${held} holds`);
  const violations = await ledgerViolations(databaseUrl);
  check('ledger invariant holds', violations.length === 0, JSON.stringify(violations));
  const missing = await one(
    `select count(*)::int as n from gengate.tasks t where t.callback_url is not null and not exists (select 1 from gengate.callback_attempts a where a.task_id = t.id and a.delivered)`,
  );
  const withCallback = (await client.query<{ id: string }>(`select id from gengate.tasks where callback_url is not null`)).rows;
  check(
    'every callback delivered',
    missing === 0 && withCallback.every((t) => delivered.has(t.id)),
    `${missing} undelivered of ${withCallback.length}, ${withCallback.filter((t) => !delivered.has(t.id)).length} not received`,
  );
}
