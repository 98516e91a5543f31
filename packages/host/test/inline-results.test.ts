import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, type Gengate } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import express from 'express';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';
import { createOpenAIRouter } from '../src/http/openai/create-openai-router.js';
import { retentionStep, runMaintenance } from '../src/jobs/maintenance-worker.js';
import { createBoss } from '../src/postgres/boss-queues.js';
import { ManualPaymentProcessor } from '../src/payments/manual-processor.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { LocalBlobStore } from '../src/storage/local-blob-store.js';
import { openPool } from './support/open-pool.js';
import { waitFor } from './support/spawn-server.js';

/**
 * Small results kept with their task (tasks.output_bodies, migration 030): written by the success's own
 * statement, served from the task row at the same URL, never put in the blob store.
 */
describe('inline results (INLINE_RESULT_MAX_BYTES)', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof openPool>;
  let boss: PgBoss;
  const closers: (() => Promise<void>)[] = [];

  interface App {
    readonly base: string;
    readonly gengate: Gengate;
    readonly dir: string;
    readonly key: string;
    /** Runs a chat task to its end on this app's gengate; returns its id and its one result URL's path. */
    run(prompt: string): Promise<{ id: string; path: string }>;
  }

  /** The router and the OpenAI surface on PostgreSQL, with a local blob store in a directory of its own. */
  async function app(inlineResultMaxBytes?: number): Promise<App> {
    const dir = mkdtempSync(join(tmpdir(), 'gg-inline-'));
    const blobStore = new LocalBlobStore(dir);
    const { stores, unitOfWork, taskIntake, taskCompletion } = createPgStores(pool.pool, boss, { schema: DEFAULT_SCHEMA });
    const gengate = createGengate({
      adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 1 } })],
      stores,
      unitOfWork,
      taskIntake,
      taskCompletion,
      blobStore,
      resultUrls: { urlFor: (k) => `http://gengate.test/api/v1/files/${k}` },
      paymentProcessor: new ManualPaymentProcessor(),
      ...(inlineResultMaxBytes === undefined ? {} : { execution: { inlineResultMaxBytes } }),
    });
    const logger = pino({ level: 'silent' });
    const server: Server = await new Promise((resolve) => {
      const s = express()
        .use('/api/v1', createGengateRouter({ gengate, blobStore, logger }))
        .use('/v1', createOpenAIRouter({ gengate, blobStore, logger }))
        .listen(0, '127.0.0.1', () => resolve(s));
    });
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const { api_key: key } = await gengate.admin.createUser({ email: `inline-${Math.random().toString(36).slice(2)}@example.com`, credits: 100 });
    const user = await gengate.authenticate.execute(key, '127.0.0.1');
    return {
      base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      gengate,
      dir,
      key,
      async run(prompt) {
        const { task_id: id } = await gengate.submitRun.execute(user, 'sandbox.echo-chat', { prompt });
        expect(await gengate.executeTask.runGeneration(id, new AbortController().signal)).toBe('success');
        const view = await gengate.getTask.execute(user, id);
        const url = new URL(view.result_urls[0] ?? '');
        return { id, path: `${url.pathname}${url.search}` };
      },
    };
  }

  const bodiesOf = async (id: string) =>
    (await pool.pool.query<{ output_bodies: Buffer[] | null; outputs: { key: string; inline?: true }[] }>('select output_bodies, outputs from gengate.tasks where id = $1', [id])).rows[0];

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = openPool(db.url, 8);
    await runMigrations(pool.pool, DEFAULT_SCHEMA);
    // The job queue the submissions enqueue on (its jobs are not worked: the test runs the tasks itself).
    boss = await createBoss({ connectionString: db.url, logger: pino({ level: 'silent' }) });
    closers.push(() => boss.stop({ graceful: false }));
  });

  afterAll(async () => {
    for (const close of closers) await close();
    await pool?.close();
    await db?.drop();
  });

  it('keeps a chat answer with its task (no blob written) and serves it at its URL: whole, HEAD, a Range, 416', async () => {
    const a = await app();
    const { id, path } = await a.run('hello inline world');
    const row = await bodiesOf(id);
    expect(row?.outputs).toEqual([expect.objectContaining({ inline: true })]);
    const text = row?.output_bodies?.[0]?.toString('utf8') ?? '';
    expect(text).toContain('hello inline world');
    // Nothing of the task's in the blob store: not even its directory.
    expect(existsSync(join(a.dir, id))).toBe(false);

    const whole = await fetch(`${a.base}${path}`);
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe(text);
    expect(whole.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    expect(whole.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

    const head = await fetch(`${a.base}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));

    const part = await fetch(`${a.base}${path}`, { headers: { Range: 'bytes=2-6' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 2-6/${Buffer.byteLength(text)}`);
    expect(await part.text()).toBe(Buffer.from(text).subarray(2, 7).toString());

    const none = await fetch(`${a.base}${path}`, { headers: { Range: 'bytes=100000-' } });
    expect(none.status).toBe(416);
    expect(none.headers.get('content-range')).toBe(`bytes */${Buffer.byteLength(text)}`);
  });

  it('puts a result larger than the limit in the blob store, and every result when the limit is 0', async () => {
    for (const limit of [8, 0]) {
      const a = await app(limit);
      const { id, path } = await a.run(`a prompt longer than eight bytes (${limit})`);
      const row = await bodiesOf(id);
      expect(row?.output_bodies).toBeNull();
      expect(row?.outputs[0]?.inline).toBeUndefined();
      expect(existsSync(join(a.dir, id))).toBe(true);
      const res = await fetch(`${a.base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('a prompt longer than eight bytes');
    }
  });

  it('an OpenAI chat completion replayed by its Idempotency-Key reads the inline answer', async () => {
    const a = await app();
    const post = () =>
      fetch(`${a.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${a.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'inline-replay-1' },
        body: JSON.stringify({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'replay me inline' }] }),
      });
    const first = (await (await post()).json()) as { id: string; choices: { message: { content: string } }[] };
    const content = first.choices[0]?.message.content ?? '';
    expect(content).toContain('replay me inline');
    const taskId = first.id.replace('chatcmpl-', '');
    expect((await bodiesOf(taskId))?.outputs[0]?.inline).toBe(true);
    expect(existsSync(join(a.dir, taskId))).toBe(false);
    const again = (await (await post()).json()) as { id: string; choices: { message: { content: string } }[] };
    expect(again.id).toBe(first.id);
    expect(again.choices[0]?.message.content).toBe(content);
  });

  it('a success that lost its race writes no bytes; deleteOutputBodies and retention make an inline result unavailable', async () => {
    const a = await app();
    // Lost race: the task ended (failed) before the success commits.
    const { api_key: key } = await a.gengate.admin.createUser({ email: `inline-race-${Math.random().toString(36).slice(2)}@example.com`, credits: 100 });
    const user = await a.gengate.authenticate.execute(key, '127.0.0.1');
    const { task_id: lost } = await a.gengate.submitRun.execute(user, 'sandbox.echo-chat', { prompt: 'x [sandbox:fail]' });
    expect(await a.gengate.executeTask.runGeneration(lost, new AbortController().signal)).toBe('fail');
    const { stores, taskCompletion } = createPgStores(pool.pool, boss, { schema: DEFAULT_SCHEMA });
    const ended = await taskCompletion?.succeed({
      task: { id: lost, userId: user.userId, modality: 'chat', callbackUrl: null },
      success: {
        outputs: [{ key: `${lost}/output-0-x.txt`, mediaType: 'text/plain', bytes: 2, inline: true }],
        outputBodies: [new TextEncoder().encode('hi')],
        warnings: [],
        chargedMicro: 0,
        costMicro: 0,
        reportedCostMicro: null,
        usage: {},
        metadata: {},
        at: new Date(),
      },
      chargeDescription: 'lost race',
      maxRunning: 8,
    });
    expect(ended).toBe(false);
    expect((await bodiesOf(lost))?.output_bodies).toBeNull();

    // Deleted on the owner's request (a stored response, a video): the URL answers 404.
    const dropped = await a.run('drop me');
    expect((await fetch(`${a.base}${dropped.path}`)).status).toBe(200);
    await stores.tasks.deleteOutputBodies(dropped.id);
    expect((await bodiesOf(dropped.id))?.output_bodies).toBeNull();
    expect((await fetch(`${a.base}${dropped.path}`)).status).toBe(404);

    // Retention purges the row, and the inline bytes with it.
    const old = await a.run('purge me');
    await waitFor(
      async () => ((await pool.pool.query(`select 1 from gengate.tasks where id = $1 and finished_at < now() - interval '1 second'`, [old.id])).rowCount ? true : null),
      { timeoutMs: 10_000, intervalMs: 100, what: 'the task to be one second old' },
    );
    const report = await runMaintenance([retentionStep({ retentionSeconds: 1 })], {
      db: pool.pool,
      schema: DEFAULT_SCHEMA,
      blobStore: new LocalBlobStore(a.dir),
      logger: pino({ level: 'silent' }),
    });
    expect(report['purge-ended-tasks']).toEqual(expect.any(Number));
    expect(await bodiesOf(old.id)).toBeUndefined();
    expect((await fetch(`${a.base}${old.path}`)).status).toBe(404);
  });
});
