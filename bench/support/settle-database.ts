import pg from 'pg';

/**
 * Does now the work a load leaves a database server to do in the background: VACUUM (ANALYZE) of every
 * table the load wrote and a CHECKPOINT of the pages it dirtied. Run between two measurements, so that the
 * autovacuum and checkpointer work one load caused runs here, not on the two cores while the next load is
 * measured. Without it, the second host of each A/B round (scratch databases on servers of their own) lost
 * a fifth of its tasks/s to the first's: `bench:pipeline --base` alternated 0.86, 1.19, 0.78, 1.34, 0.76
 * with the order. A server that refuses CHECKPOINT (a role without pg_checkpoint) is only vacuumed.
 */
export async function settleDatabase(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('vacuum (analyze)');
    await c.query('checkpoint').catch(() => undefined);
  } finally {
    await c.end();
  }
}
