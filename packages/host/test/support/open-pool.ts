import pg from 'pg';

/**
 * A pool whose close() resolves only when every connection has really closed: pg-pool's end() resolves
 * before the sockets do, and TestDatabase.drop() would then terminate those backends, which surfaces as an
 * uncaught "terminating connection due to administrator command" on a pool without an error listener.
 */
export function openPool(url: string, max: number): { pool: pg.Pool; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max, pipeline: true });
  let open = 0;
  let closing = false;
  let allClosed: (() => void) | null = null;
  pool.on('connect', () => {
    open++;
  });
  pool.on('remove', () => {
    open--;
    if (open === 0) allClosed?.();
  });
  pool.on('error', (err) => {
    if (!closing) throw err;
  });
  return {
    pool,
    async close() {
      closing = true;
      const done = new Promise<void>((resolve) => {
        allClosed = resolve;
      });
      await pool.end();
      if (open > 0) {
        const timeout = new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`${open} connection(s) still open`)), 5_000).unref());
        await Promise.race([done, timeout]);
      }
    },
  };
}
