import { createGengate, MemoryBlobStore } from '@gengate/core';
import type { MoneyContractHarness, MoneyImplementation, RawMoneyState, TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { createBoss, QUEUES } from '../../src/postgres/boss-queues.js';
import { ManualPaymentProcessor } from '../../src/payments/manual-processor.js';
import { runMigrations } from '../../src/postgres/migrate.js';
import { createPgStores } from '../../src/postgres/pg-unit-of-work.js';
import { DEFAULT_SCHEMA } from '../../src/postgres/schema.js';
import { createMigratedTestDatabase } from './migrated-test-database.js';

/**
 * The rows of the given users in one statement (the differential test reads them after every step).
 * Jobs: the generation and callback jobs of their tasks and the mails of their alerts not yet done in pg-boss.
 */
const stateSql = (s: string) => `
with u as (select unnest($1::uuid[]) as user_id)
select json_build_object(
  'accounts', (select coalesce(json_agg(json_build_object('userId', a.user_id, 'balanceMicro', a.balance_micro, 'heldMicro', a.held_micro)), '[]') from ${s}.account_totals a join u using (user_id)),
  'transactions', (select coalesce(json_agg(json_build_object('userId', t.user_id, 'taskId', t.task_id, 'creditsMicro', t.credits_micro, 'amountMicroUsd', t.amount_micro_usd,
      'paymentMethod', t.payment_method, 'status', t.status, 'description', t.description)), '[]') from ${s}.transactions t join u using (user_id)),
  'holds', (select coalesce(json_agg(json_build_object('userId', h.user_id, 'taskId', h.task_id, 'amountMicro', h.amount_micro, 'state', h.state)), '[]') from ${s}.holds h join u using (user_id)),
  'tasks', (select coalesce(json_agg(json_build_object('id', t.id, 'userId', t.user_id, 'status', t.status, 'admitted', t.admitted, 'attempts', t.attempts,
      'quotedMicro', t.quoted_micro, 'chargedMicro', t.charged_micro, 'errorMessage', t.error_message)), '[]') from ${s}.tasks t join u using (user_id)),
  'alerts', (select coalesce(json_agg(json_build_object('userId', a.user_id, 'thresholdMicro', a.threshold_micro, 'armed', a.armed)), '[]') from ${s}.balance_alerts a join u using (user_id)),
  'jobs', (select coalesce(json_agg(j), '[]') from (
      select case j.name when '${QUEUES.generate}' then 'generate' else 'callback' end as "queue", t.id as "taskId", t.user_id as "userId"
        from pgboss.job j join ${s}.tasks t on t.id::text = j.data->>'taskId' join u on u.user_id = t.user_id
        where j.name in ('${QUEUES.generate}', '${QUEUES.callback}') and j.state in ('created', 'retry', 'active')
      union all
      select 'alert-mail', null, a.user_id from pgboss.job j join ${s}.balance_alerts a on a.id::text = j.data->>'alertId' join u on u.user_id = a.user_id
        where j.name = '${QUEUES.alertMail}' and j.state in ('created', 'retry', 'active')
      union all
      select 'key-budget-mail', null, u.user_id from pgboss.job j join u on u.user_id::text = j.data->'keyMail'->>'userId'
        where j.name = '${QUEUES.alertMail}' and j.state in ('created', 'retry', 'active')) j)
) as state`;

/** bigint columns arrive as JSON numbers (exact below 2^53, far above any balance here). */
type StateRow = { state: RawMoneyState };

/**
 * The money contract's subject on PostgreSQL: one database, pool and pg-boss for the whole file, a new
 * set of use cases (createPgStores: PgTaskIntake, PgTaskCompletion) for each `open`. Nothing is reset:
 * each scenario makes new users and reads only theirs.
 */
export async function openPgMoneyHarness(options: { pipeline?: boolean } = {}): Promise<MoneyContractHarness & { close(): Promise<void>; readonly db: TestDatabase }> {
  const db = await createMigratedTestDatabase();
  // A throwaway database: commits need not wait for the disk (what is visible to whom is unchanged).
  const setup = new pg.Client({ connectionString: db.url });
  await setup.connect();
  try {
    await setup.query(`alter database ${pg.escapeIdentifier(new URL(db.url).pathname.slice(1))} set synchronous_commit = off`);
  } finally {
    await setup.end();
  }
  const pool = new pg.Pool({ connectionString: db.url, max: 10, pipeline: options.pipeline ?? true });
  await runMigrations(pool, DEFAULT_SCHEMA);
  const boss: PgBoss = await createBoss({ connectionString: db.url, logger: pino({ level: 'silent' }) });
  // The state read joins jobs on their task id after every step: without this it scans every job so far.
  await pool.query(`create index money_contract_job_task on pgboss.job ((data->>'taskId'))`);
  const read = stateSql(DEFAULT_SCHEMA);
  return {
    db,
    async open(config): Promise<MoneyImplementation> {
      const { stores, unitOfWork, taskIntake, taskCompletion, usageReader, organizations } = createPgStores(pool, boss, { schema: DEFAULT_SCHEMA });
      const gengate = createGengate({
        adapters: config.adapters,
        stores,
        unitOfWork,
        taskIntake,
        taskCompletion,
        blobStore: new MemoryBlobStore(),
        resultUrls: { urlFor: (k) => `http://gengate.test/api/v1/files/${k}` },
        paymentProcessor: new ManualPaymentProcessor(),
        scheduling: config.scheduling,
        organizations,
        ...(usageReader ? { usageReader } : {}),
        ...(config.clock ? { clock: config.clock } : {}),
      });
      return {
        gengate,
        async readState(userIds) {
          const { rows } = await pool.query<StateRow>(read, [userIds]);
          const state = rows[0]?.state;
          if (!state) throw new Error('no state read');
          return state;
        },
        async ageIdempotencyKeys(userId, hours) {
          await pool.query(`update ${DEFAULT_SCHEMA}.idempotency_keys set created_at = created_at - make_interval(hours => $2) where user_id = $1`, [userId, hours]);
        },
        close: async () => undefined,
      };
    },
    async close() {
      await boss.stop({ graceful: false });
      await pool.end();
      await db.drop();
    },
  };
}
