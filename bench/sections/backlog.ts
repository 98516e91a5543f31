import pg from 'pg';

/** The submission loads left thousands of queued tasks: end them, so the worker phases measure their own tasks only. */
export async function discardBacklog(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`delete from pgboss.job where name like 'gengate-%' and state < 'active'`);
  await c.query(`update gengate.holds set state = 'released' where state = 'held'`);
  // The ends appended to account_pending first (migration 020), then no credit held.
  await c.query(`select gengate.gengate_fold_pending(user_id) from gengate.accounts`);
  await c.query(`update gengate.accounts set held_micro = 0`);
  await c.query(`update gengate.tasks set status = 'fail', error_message = 'discarded by the bench', finished_at = now() where status in ('waiting', 'generating')`);
  await c.end();
}
