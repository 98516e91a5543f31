import type { PgBoss } from 'pg-boss';
import { BOSS_SCHEMA } from '../postgres/boss-queues.js';

/** A job this process runs: its id and the attempt it was fetched at (pg-boss's attempt fence). */
export interface HeldJob {
  readonly id: string;
  readonly retryCount: number;
}

/**
 * The heartbeat of the jobs one process runs, as pg-boss's touch() with its attempt fence, except that a
 * job row another transaction holds is skipped, not waited for. That transaction is the job's own end
 * (gengate_finish_success completes the job in the end's commit, or a batch of ends does) or its claim
 * by another worker; either way the row needs no heartbeat now.
 *
 * Waiting was a deadlock: touch() locks its rows in index order (by job id) and a batch of ends locks
 * them in its own order (user, task), so a heartbeat that met a batch ending two of its jobs in the
 * other order waited for it while the batch waited for the heartbeat, until PostgreSQL's deadlock_timeout
 * (1 s) broke the cycle by failing one of them (seen twice in a 6,000-task pipeline: the heartbeat
 * failed, or the whole batch of ends rolled back and ran again one by one, a second late).
 *
 * `alive`: the jobs still active under this process's attempt, read without a lock in the same
 * statement (a row being ended counts as alive until its end commits): a held job missing from it has
 * lost its claim. `touched`: how many heartbeats were written.
 */
export async function touchHeldJobs(boss: Pick<PgBoss, 'getDb'>, queue: string, held: readonly HeldJob[]): Promise<{ readonly alive: ReadonlySet<string>; readonly touched: number }> {
  const ids = held.map((j) => j.id.toLowerCase());
  const attempts = held.map((j, i) => `${ids[i]}:${j.retryCount}`);
  const ours = `name = $1 and id = any($2::uuid[]) and state = 'active' and (id::text || ':' || retry_count::text) = any($3::text[])`;
  const { rows } = await boss.getDb().executeSql(
    `with mine as (select id from ${BOSS_SCHEMA}.job where ${ours} for update skip locked),
      touched as (update ${BOSS_SCHEMA}.job j set heartbeat_on = ${BOSS_SCHEMA}.job_now() from mine where j.name = $1 and j.id = mine.id returning j.id)
    select (select count(*)::int from touched) as touched, coalesce((select array_agg(id) from ${BOSS_SCHEMA}.job where ${ours}), '{}'::uuid[]) as alive`,
    [queue, ids, attempts],
  );
  const row = rows[0] as { touched: number; alive: string[] } | undefined;
  return { alive: new Set(row?.alive ?? []), touched: row?.touched ?? 0 };
}
