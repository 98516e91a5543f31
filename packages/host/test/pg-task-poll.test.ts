import { randomUUID } from 'node:crypto';
import { StoreTaskPoll, type RunRequest, type TaskPoll, type TaskViewSource, type TransactionScope } from '@gengate/core';
import { toTaskView } from '@gengate/core/internal';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../src/postgres/migrate.js';
import { PgTaskPoll } from '../src/postgres/pg-task-poll.js';
import type { PreparedQueryable } from '../src/postgres/queryable.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { openPool } from './support/open-pool.js';

/**
 * PgTaskPoll reads only the columns of a task's view, built into one JSON value: whatever a task holds,
 * the view it answers must be the one the whole stored record gives, and the one the stores' TaskPoll
 * (StoreTaskPoll, the memory stores' poll) answers over the same rows; tenant isolation and the key's
 * revocation as before.
 */
describe('PgTaskPoll answers the view of the whole record', () => {
  let db: TestDatabase;
  let close: () => Promise<void>;
  let pool: PreparedQueryable;
  let stores: TransactionScope;
  let pgPoll: TaskPoll;
  let storePoll: TaskPoll;
  const urls = { urlFor: (key: string) => `https://files.example/${key}` };

  beforeAll(async () => {
    db = await createTestDatabase();
    const opened = openPool(db.url, 4);
    close = opened.close;
    pool = opened.pool;
    await runMigrations(opened.pool, DEFAULT_SCHEMA);
    stores = createPgStores(opened.pool, null, { schema: DEFAULT_SCHEMA }).stores;
    pgPoll = new PgTaskPoll(opened.pool, DEFAULT_SCHEMA);
    storePoll = new StoreTaskPoll(stores.tasks, stores.keys);
  });

  afterAll(async () => {
    await close?.();
    await db?.drop();
  });

  async function owner(): Promise<{ userId: string; keyId: string }> {
    const user = await stores.users.insert({ id: randomUUID(), email: `poll-${randomUUID()}@example.com` });
    await stores.ledger.openAccount(user.id);
    const key = await stores.keys.insert({
      id: randomUUID(),
      userId: user.id,
      name: 'poll',
      secretHash: randomUUID().replaceAll('-', '').repeat(2),
      mask: 'gg_live_…poll',
      limits: { perMinute: null, perHour: null, perDay: null },
      ipWhitelist: [],
    });
    return { userId: user.id, keyId: key.id };
  }

  async function task(userId: string, keyId: string, request: RunRequest, modelId = 'sandbox.pixel-image'): Promise<string> {
    const id = randomUUID();
    await stores.tasks.insert({ id, userId, apiKeyId: keyId, modelId, modality: 'image', request, callbackUrl: null, quotedMicro: 5, quotedCostMicro: 4, admitted: true });
    return id;
  }

  /** The view each poll answers, beside the one of the whole stored record. */
  async function views(id: string, userId: string, keyId: string) {
    const record = await stores.tasks.findForUser(id, userId);
    const [viaPg, viaStores] = await Promise.all([pgPoll.read(id, userId, keyId), storePoll.read(id, userId, keyId)]);
    if (!record || !viaPg || viaPg === 'key_revoked' || !viaStores || viaStores === 'key_revoked') throw new Error(`no task ${id}`);
    return { record: toTaskView(record, urls), pg: toTaskView(viaPg, urls), stores: toTaskView(viaStores, urls) };
  }

  it('a waiting task: exactly the interface document Task', async () => {
    const { userId, keyId } = await owner();
    const id = await task(userId, keyId, { prompt: 'a red square' });
    const v = await views(id, userId, keyId);
    expect(v.pg).toEqual(v.record);
    expect(v.stores).toEqual(v.record);
    expect(Object.keys(v.pg).sort()).toEqual(['created_at', 'error_message', 'result_urls', 'status', 'task_id']);
  });

  it('a routed task while it generates (progress, route, attempt log) and after it succeeded (result URLs)', async () => {
    const { userId, keyId } = await owner();
    const id = await task(userId, keyId, { prompt: 'fallbacks', models: ['sandbox.pixel-image'], provider: { sort: 'price' } }, 'house.image');
    const t0 = new Date('2026-11-26T05:00:00.123Z');
    await stores.tasks.recordRouteAttempt(id, { route: 'fal.flux-schnell', provider: 'fal', outcome: 'error', errorClass: 'server', upstreamStatus: 502, startedAt: t0, endedAt: new Date(t0.getTime() + 1_500) });
    await stores.tasks.recordRouteAttempt(id, { route: 'sandbox.pixel-image', provider: 'sandbox', outcome: 'started', errorClass: null, upstreamStatus: null, startedAt: new Date(t0.getTime() + 1_600), endedAt: new Date(t0.getTime() + 1_700) });
    await stores.tasks.markGenerating(id, new Date());
    await stores.tasks.advanceCheck(id, 0, 0.25);
    const generating = await views(id, userId, keyId);
    expect(generating.pg).toEqual(generating.record);
    expect(generating.stores).toEqual(generating.record);
    expect(generating.pg.progress).toBe(0.25);
    expect(generating.pg.extensions?.attempts.map((a) => [a.route, a.outcome, a.started_at])).toEqual([
      ['fal.flux-schnell', 'error', '2026-11-26T05:00:00.123Z'],
      ['sandbox.pixel-image', 'started', '2026-11-26T05:00:01.723Z'],
    ]);
    await stores.tasks.markSuccess(id, {
      outputs: [{ key: `${id}/output-0.png`, mediaType: 'image/png', bytes: 10 }],
      warnings: [],
      chargedMicro: 5,
      costMicro: 4,
      reportedCostMicro: null,
      usage: { images: 1 },
      metadata: {},
      at: new Date(),
    });
    const done = await views(id, userId, keyId);
    expect(done.pg).toEqual(done.record);
    expect(done.stores).toEqual(done.record);
    expect(done.pg.result_urls).toEqual([`https://files.example/${id}/output-0.png`]);
  });

  it('a provider model task whose request asked for routing shows its route; a failed one its message', async () => {
    const { userId, keyId } = await owner();
    const asked = await task(userId, keyId, { prompt: 'policy only', provider: { sort: 'latency' } });
    await stores.tasks.recordRouteAttempt(asked, { route: 'sandbox.pixel-image', provider: 'sandbox', outcome: 'success', errorClass: null, upstreamStatus: 200, startedAt: new Date(), endedAt: new Date() });
    const a = await views(asked, userId, keyId);
    expect(a.pg).toEqual(a.record);
    expect(a.pg.extensions?.attempts).toHaveLength(1);
    const failed = await task(userId, keyId, { prompt: 'fails' });
    await stores.tasks.markFail(failed, 'upstream refused the prompt', new Date());
    const f = await views(failed, userId, keyId);
    expect(f.pg).toEqual(f.record);
    expect(f.pg.error_message).toBe('upstream refused the prompt');
  });

  it("another user's task, an unknown id and a revoked key: as the stores' poll answers", async () => {
    const a = await owner();
    const b = await owner();
    const id = await task(a.userId, a.keyId, { prompt: 'mine' });
    for (const poll of [pgPoll, storePoll]) {
      expect(await poll.read(id, b.userId, b.keyId)).toBeNull();
      expect(await poll.read(randomUUID(), a.userId, a.keyId)).toBeNull();
      expect(await poll.read(id, a.userId, null)).not.toBeNull(); // a session: no key to check
    }
    await stores.keys.revoke(a.keyId, a.userId);
    expect(await pgPoll.read(id, a.userId, a.keyId)).toBe('key_revoked');
    expect(await storePoll.read(id, a.userId, a.keyId)).toBe('key_revoked');
    expect(await pgPoll.read(randomUUID(), a.userId, a.keyId)).toBe('key_revoked');
  });
  it('polls of one turn share a statement, and each is answered for its own caller and key', async () => {
    const a = await owner();
    const b = await owner();
    const revoked = await owner();
    const mine = await task(a.userId, a.keyId, { prompt: 'a' });
    const theirs = await task(b.userId, b.keyId, { prompt: 'b' });
    const gone = await task(revoked.userId, revoked.keyId, { prompt: 'revoked' });
    await stores.keys.revoke(revoked.keyId, revoked.userId);
    let statements = 0;
    const counted = new PgTaskPoll({ query: (config) => (statements++, pool.query(config)) }, DEFAULT_SCHEMA);
    // Made in the same turn: one statement answers them all.
    const answers = await Promise.all([
      counted.read(mine, a.userId, a.keyId),
      counted.read(theirs, a.userId, a.keyId), // another user's task: none
      counted.read(theirs, b.userId, b.keyId),
      counted.read(gone, revoked.userId, revoked.keyId),
      counted.read(randomUUID(), b.userId, b.keyId),
      counted.read(mine, a.userId, null),
    ]);
    expect(statements).toBe(1);
    expect(answers.map((x) => (x === null || x === 'key_revoked' ? x : x.id))).toEqual([mine, null, theirs, 'key_revoked', null, mine]);
    const view = (x: TaskViewSource | null | 'key_revoked') => (x === null || x === 'key_revoked' ? x : toTaskView(x, urls));
    expect(view(answers[0] ?? null)).toEqual(view(await storePoll.read(mine, a.userId, null)));
    expect(view(answers[2] ?? null)).toEqual(view(await storePoll.read(theirs, b.userId, null)));
  });
  it('is planned once per connection, and reads tasks and keys by primary key even when the tables were analyzed small', async () => {
    const a = await owner();
    const mine = await task(a.userId, a.keyId, { prompt: 'a' });
    // Small tables with fresh statistics: what a new deployment has when its first plans are made. A
    // generic plan made now would read them by sequential scan, and keep doing so as they grow.
    // One connection, so pg_prepared_statements and its statistics are the poll's.
    const one = openPool(db.url, 1);
    await one.pool.query('analyze gengate.tasks, gengate.api_keys');
    const seqScans = async (): Promise<number> => {
      // This session's counts, flushed to the shared statistics first (PostgreSQL 15 and later).
      await one.pool.query('select pg_stat_force_next_flush()');
      const { rows } = await one.pool.query<{ n: string }>(
        `select coalesce(sum(seq_scan), 0) as n from pg_stat_user_tables where schemaname = 'gengate' and relname in ('tasks', 'api_keys')`,
      );
      return Number(rows[0]?.n);
    };
    try {
      const poll = new PgTaskPoll(one.pool, DEFAULT_SCHEMA);
      const before = await seqScans();
      for (let run = 0; run < 8; run++) {
        // Batches of 1 to 4 polls: the plan kept does not depend on a batch's length.
        const answers = await Promise.all(Array.from({ length: 1 + (run % 4) }, () => poll.read(mine, a.userId, a.keyId)));
        expect(answers.map((x) => (x === null || x === 'key_revoked' ? x : x.id))).toEqual(answers.map(() => mine));
      }
      expect(await seqScans()).toBe(before);
      const { rows } = await one.pool.query<{ generic_plans: string; custom_plans: string }>(
        `select generic_plans, custom_plans from pg_prepared_statements where name like 'gengate_poll_%'`,
      );
      expect(rows.map((r) => [Number(r.custom_plans), Number(r.generic_plans)])).toEqual([[5, 3]]);
    } finally {
      await one.close();
    }
  });
  it('polls made while its statement is in flight wait for it and go together in the next one', async () => {
    const a = await owner();
    const mine = await task(a.userId, a.keyId, { prompt: 'a' });
    const sizes: number[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const gated = new PgTaskPoll(
      {
        query: async (config) => {
          sizes.push((config.values[0] as unknown[]).length);
          if (sizes.length === 1) await held;
          return pool.query(config);
        },
      },
      DEFAULT_SCHEMA,
    );
    const first = gated.read(mine, a.userId, a.keyId);
    await new Promise((r) => setImmediate(r)); // the first statement is sent, and held
    const later = [gated.read(mine, a.userId, a.keyId)];
    await new Promise((r) => setImmediate(r)); // a later turn: still one statement in flight
    later.push(gated.read(mine, a.userId, a.keyId), gated.read(mine, a.userId, null));
    await new Promise((r) => setImmediate(r));
    expect(sizes).toEqual([1]);
    release();
    const answers = await Promise.all([first, ...later]);
    expect(sizes).toEqual([1, 3]);
    expect(answers.map((x) => (x === null || x === 'key_revoked' ? x : x.id))).toEqual([mine, mine, mine, mine]);
  });
});
