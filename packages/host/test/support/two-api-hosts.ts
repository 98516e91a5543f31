import { TOKENS, type Clock, type CreateGengateOptions } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../../src/server/config.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { tempDataDir } from './spawn-server.js';

/** What a burst of submissions got: how many were accepted, and the refusals by "status type". */
export interface BurstResult {
  readonly accepted: number;
  readonly refused: Record<string, number>;
}

/**
 * Two gengate processes on one fresh database (each its own pool, key cache and container), API role only
 * (no worker: every accepted task stays waiting with its hold), the same injected clock in both, and one user
 * with credits and its key: the scaffolding of the spend-control tests across processes.
 */
export interface TwoApiHosts {
  readonly a: RunningServer;
  readonly b: RunningServer;
  /** A connection of its own to the database, for the tests' checks. */
  readonly admin: pg.Client;
  readonly rootKey: string;
  readonly userId: string;
  /** Moves the clock of both processes. */
  setNow(iso: string): void;
  call(server: RunningServer, key: string, path: string, init?: RequestInit): Promise<Response>;
  /** The `n` column of a query's first row, as a number. */
  count(sql: string, values?: unknown[]): Promise<number>;
  /** Micro-credits of every open hold. */
  heldMicro(): Promise<number>;
  /** A new key of the user (POST /api-keys with `body`). */
  newKey(body?: object): Promise<{ id: string; key: string }>;
  /** `n` submissions fired at once: the i-th through `submit(i % 2 === 0 ? a : b, i)`. */
  burst(n: number, submit: (server: RunningServer, i: number) => Promise<Response>): Promise<BurstResult>;
  close(): Promise<void>;
}

export async function startTwoApiHosts(o: { readonly email: string; readonly credits: number; readonly startAt: string }): Promise<TwoApiHosts> {
  let now = new Date(o.startAt).getTime();
  const clock: Clock = { now: () => new Date(now) };
  const configure: NonNullable<CreateGengateOptions['configure']> = (c) => {
    c.rebind(TOKENS.Clock).toConstantValue(clock);
  };
  const db: TestDatabase = await createTestDatabase();
  const env = (): Record<string, string> => ({
    DATABASE_URL: db.url,
    GENGATE_DATA_DIR: tempDataDir(),
    PORT: '0',
    ROLE: 'api',
    DASHBOARD_ENABLED: 'false',
    TASKS_QUEUED_PER_USER: '10000',
  });
  const a = await startServer(loadConfig(env()), { logger: pino({ level: 'silent' }), configure });
  const b = await startServer(loadConfig(env()), { logger: pino({ level: 'silent' }), configure });
  const created = await a.gengate.admin.createUser({ email: o.email, credits: o.credits });
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();

  const call = (server: RunningServer, key: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });
  const count = async (sql: string, values: unknown[] = []) => Number((await admin.query<{ n: string }>(sql, values)).rows[0]?.n ?? -1);
  return {
    a,
    b,
    admin,
    rootKey: created.api_key,
    userId: created.user_id,
    setNow: (iso) => {
      now = new Date(iso).getTime();
    },
    call,
    count,
    heldMicro: () => count(`select coalesce(sum(amount_micro), 0) as n from gengate.holds where state = 'held'`),
    newKey: async (body = {}) => {
      const res = await call(a, created.api_key, '/api-keys', { method: 'POST', body: JSON.stringify({ name: `k-${Math.random()}`, ...body }) });
      if (res.status !== 201) throw new Error(`creating a key answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { id: string; key: string };
    },
    burst: async (n, submit) => {
      const answers = await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const res = await submit(i % 2 === 0 ? a : b, i);
          const body = (await res.json()) as { error?: { type: string } };
          return res.status === 200 ? 'accepted' : `${res.status} ${body.error?.type ?? '?'}`;
        }),
      );
      const refused: Record<string, number> = {};
      for (const x of answers) if (x !== 'accepted') refused[x] = (refused[x] ?? 0) + 1;
      return { accepted: answers.filter((x) => x === 'accepted').length, refused };
    },
    close: async () => {
      await admin.end();
      await a.close();
      await b.close();
      await db.drop();
    },
  };
}
