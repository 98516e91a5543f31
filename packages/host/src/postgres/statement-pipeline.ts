import type pg from 'pg';

/**
 * Issues statements on one client in order without waiting for each answer when the client runs in
 * pipeline mode (`new pg.Pool({ pipeline: true })`): they travel in one network round trip and the
 * server still runs them one after another. On an ordinary client each waits for the one before (same
 * results, one round trip each). A failed statement does not stop the later ones from being sent: inside
 * a transaction they fail too, and COMMIT answers ROLLBACK.
 */
export class StatementPipeline {
  private last: Promise<unknown> = Promise.resolve();
  private readonly pipelined: boolean;

  constructor(private readonly client: pg.PoolClient) {
    this.pipelined = 'pipeline' in client && client.pipeline === true;
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>> {
    const run = () => this.client.query<R>(text, values === undefined ? undefined : [...values]);
    const result = this.pipelined ? run() : this.last.then(run, run);
    this.last = result.catch(() => undefined);
    return result;
  }
}
