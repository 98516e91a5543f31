import pg from 'pg';
import type { PgBoss, SendOptions } from 'pg-boss';

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
  /** Every statement issued, settled (their failures are observed here, so none goes unhandled). */
  readonly issued: Promise<unknown>[] = [];
  private readonly failures: { readonly at: number; readonly error: unknown }[] = [];

  /** The error of the earliest statement that failed: the cause of any later "transaction is aborted". */
  get firstFailure(): unknown {
    return this.failures.reduce<{ at: number; error: unknown } | null>((a, f) => (a === null || f.at < a.at ? f : a), null)?.error;
  }

  private observe(p: Promise<unknown>): Promise<unknown> {
    const at = this.issued.length;
    const settled = p.then(
      () => undefined,
      (error: unknown) => void this.failures.push({ at, error }),
    );
    this.issued.push(settled);
    return settled;
  }

  constructor(private readonly client: pg.PoolClient) {
    this.pipelined = 'pipeline' in client && client.pipeline === true;
  }

  /**
   * Sends a statement now (pipelined) or once the one before has answered, in issue order either way.
   * With a `name`, a named prepared statement: parsed and planned once per connection.
   */
  private issue<R extends pg.QueryResultRow>(text: string, values: readonly unknown[] | undefined, name?: string): Promise<pg.QueryResult<R>> {
    const copy = values === undefined ? undefined : [...values];
    const run = () => (name === undefined ? this.client.query<R>(text, copy) : this.client.query<R>({ name, text, ...(copy === undefined ? {} : { values: copy }) }));
    return this.pipelined ? run() : this.last.then(run, run);
  }

  /** Issues a statement after the others, whose failure is nobody's concern (it settles either way). */
  unobserved(text: string, values: readonly unknown[], name?: string): Promise<void> {
    const settled = this.issue(text, values, name).then(() => undefined, () => undefined);
    this.last = settled;
    return settled;
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: readonly unknown[], name?: string): Promise<pg.QueryResult<R>> {
    const result = this.issue<R>(text, values, name);
    this.last = this.observe(result);
    return result;
  }

  /**
   * Has pg-boss insert a job through this pipeline. Resolves once pg-boss has issued its statement (so
   * what is issued next runs after it), with `{ job }`, the promise of the job's id. (Wrapped: an async
   * function returning the bare promise would adopt it and wait for the answer, a round trip.)
   */
  async sendJob(boss: PgBoss, queue: string, data: object, options: Omit<SendOptions, 'db'>): Promise<{ readonly job: Promise<string | null> }> {
    let issued!: () => void;
    const jobIssued = new Promise<void>((resolve) => (issued = resolve));
    const job = boss.send(queue, data, {
      ...options,
      db: {
        executeSql: (text, values) => {
          const q = this.query(text, values);
          issued();
          return q;
        },
      },
    });
    void this.observe(job);
    await Promise.race([jobIssued, job]);
    return { job };
  }

  /**
   * Pipelined: keeps what is issued from now on in the socket's buffer until `flush()`, so the statements
   * leave in one write (one system call) instead of one each. No-op on an ordinary client, whose
   * statements wait for each other's answers.
   */
  hold(): void {
    if (this.pipelined) this.socket()?.cork();
  }

  flush(): void {
    if (this.pipelined) this.socket()?.uncork();
  }

  private socket(): { cork(): void; uncork(): void } | null {
    const c: unknown = this.client;
    return c instanceof pg.Client ? c.connection.stream : null;
  }
}

/**
 * One transaction whose statements travel together: BEGIN, what `body` issues, COMMIT. `body` issues its
 * statements (it may wait for pg-boss to issue a job, never for an answer) and returns `{ result }`, the
 * promise of its answer; a refusal raised by a statement rejects it and rolls the transaction back.
 */
export async function pipelinedTransaction<T>(
  pool: pg.Pool,
  body: (p: StatementPipeline) => Promise<{ readonly result: Promise<T> }>,
  /**
   * A statement sent in the same write right after COMMIT, outside the transaction (for example a
   * NOTIFY that must not hold the commit lock); its outcome is ignored.
   */
  after?: { readonly text: string; readonly values: readonly unknown[] },
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const p = new StatementPipeline(client);
    p.hold();
    let issuing: { begin: Promise<pg.QueryResult>; result: Promise<T>; commit: Promise<pg.QueryResult>; afterwards: Promise<unknown> };
    try {
      const begin = p.query('begin');
      const { result } = await body(p);
      const commit = p.query('commit');
      const afterwards = after ? p.unobserved(after.text, after.values) : Promise.resolve();
      issuing = { begin, result, commit, afterwards };
    } finally {
      p.flush();
    }
    const { begin, result, commit, afterwards } = issuing;
    await Promise.allSettled([begin, result, commit, afterwards, ...p.issued]);
    const failure = p.firstFailure;
    // A refusal raised by the body's own statement is its answer; any earlier failure is the cause.
    if (failure !== undefined && !isRefusal(failure)) throw failure;
    const value = await result;
    const ended = await commit;
    if (ended.command !== 'COMMIT') throw new Error(`the transaction ended with ${ended.command}`);
    return value;
  } catch (err) {
    await client.query('rollback').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

/** A statement's text and values; with a `name`, it runs as a named prepared statement (parsed and planned once per connection). */
export interface PipelinedStatement {
  readonly text: string;
  readonly values: readonly unknown[];
  readonly name?: string;
}

/**
 * One statement that is a transaction by itself, and optionally one more right after it, in one write.
 * PostgreSQL runs a statement sent outside BEGIN as its own transaction: a function that raises rolls
 * back everything it wrote, and its locks are held until it returns and commits. So a money rule that is
 * one SQL function call needs no BEGIN and COMMIT around it (two statements fewer, same atomicity). Each
 * statement carries its own Sync, so `after` (for example a NOTIFY that must not hold the commit lock)
 * runs in a transaction of its own once the first has committed or rolled back; its outcome is ignored.
 * The first statement's answer is returned as soon as it arrives, without waiting for `after`'s: a NOTIFY
 * commits on its own (a transaction id, a WAL flush) and nothing the caller answers depends on it. The
 * connection goes back to the pool once `after` has answered too.
 */
export async function pipelinedStatement<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  statement: PipelinedStatement,
  after?: PipelinedStatement,
): Promise<pg.QueryResult<R>> {
  const client = await pool.connect();
  let broken: Error | undefined;
  let afterwards: Promise<void> = Promise.resolve();
  try {
    const p = new StatementPipeline(client);
    p.hold();
    let result: Promise<pg.QueryResult<R>>;
    try {
      result = p.query<R>(statement.text, statement.values, statement.name);
      if (after) afterwards = p.unobserved(after.text, after.values, after.name);
    } finally {
      p.flush();
    }
    return await result;
  } catch (err) {
    // A statement's own error (a refusal, a constraint) leaves the connection usable; anything else may not.
    if (!(err instanceof pg.DatabaseError)) broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    // `afterwards` settles either way (unobserved): the connection is released once its last answer is in.
    void afterwards.then(() => client.release(broken));
  }
}

/** A gengate function's deliberate refusal (SQLSTATE class GG, see functions/submit-task.ts). */
export function isRefusal(err: unknown): err is { code: string; detail?: string } {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' && err.code.startsWith('GG');
}
