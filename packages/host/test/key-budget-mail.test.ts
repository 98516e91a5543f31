import { TOKENS, type Clock, type CreateGengateOptions } from '@gengate/core';
import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { tempDataDir, waitFor } from './support/spawn-server.js';

/**
 * A key's soft threshold: one mail, through a real SMTP server, the first time a period's spend (held +
 * charged) reaches the threshold; none for the rest of the period; one again in the next period. The
 * host runs whole (API and workers), its clock injected.
 */
describe('key soft-threshold mails', () => {
  let db: TestDatabase;
  let smtp: SmtpCapture;
  let server: RunningServer;
  let admin: pg.Client;
  let rootKey: string;
  let now = new Date('2026-11-26T10:00:00.000Z').getTime();
  const clock: Clock = { now: () => new Date(now) };
  const configure: NonNullable<CreateGengateOptions['configure']> = (c) => {
    c.rebind(TOKENS.Clock).toConstantValue(clock);
  };

  const call = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });
  const keyMailJobs = async () =>
    Number((await admin.query<{ n: string }>(`select count(*) as n from pgboss.job where name = 'gengate-alert-mail' and data ? 'keyMail'`)).rows[0]?.n);

  /** One 2-credit image run to success with `key`. */
  async function spend(key: string): Promise<void> {
    const res = await call(key, '/run/sandbox.pixel-image', { method: 'POST', body: JSON.stringify({ prompt: 'coin', image_params: { width: 64, height: 64 } }) });
    expect(res.status).toBe(200);
    const { task_id: taskId } = (await res.json()) as { task_id: string };
    await waitFor(async () => (((await (await call(key, `/run/tasks/${taskId}`)).json()) as { status: string }).status === 'success' ? true : null), {
      timeoutMs: 20_000,
      what: `task ${taskId}`,
    });
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    smtp = await startSmtpCapture();
    const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), PORT: '0', DASHBOARD_ENABLED: 'false', SANDBOX_LATENCY_MS: '20', SMTP_URL: smtp.url, MAIL_FROM: 'gengate <alerts@gengate.test>' };
    server = await startServer(loadConfig(env), { logger: pino({ level: 'silent' }), configure });
    rootKey = (await server.gengate.admin.createUser({ email: 'key-owner@example.com', credits: 1_000 })).api_key;
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await server?.close();
    await smtp?.close();
    await db?.drop();
  });

  it('mails once per period when the spend reaches the soft threshold', { timeout: 120_000 }, async () => {
    const created = await call(rootKey, '/api-keys', { method: 'POST', body: JSON.stringify({ name: 'ci-bot', spend_limit: 10, budget_period: 'day', soft_threshold_percent: 50 }) });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };

    await spend(key);
    await spend(key); // 4 of 10: below 5
    expect(await keyMailJobs()).toBe(0);
    await spend(key); // 6: reaches 5
    const [first] = await smtp.waitFor(1);
    expect(first?.to).toEqual(['key-owner@example.com']);
    expect(first?.unfolded).toContain("Your API key 'ci-bot'");
    expect(first?.unfolded).toContain('has spent 6 of its 10 credit spend limit');
    expect(first?.unfolded).toContain('The budget starts again at 2026-11-27T00:00:00.000Z.');

    await spend(key); // 8: same period, no second mail job
    expect(await keyMailJobs()).toBe(1);

    now = new Date('2026-11-27T08:00:00.000Z').getTime();
    await spend(key);
    await spend(key); // 4 of the new period
    expect(await keyMailJobs()).toBe(1);
    await spend(key); // 6: the new period's mail
    const mails = await smtp.waitFor(2);
    expect(mails[1]?.unfolded).toContain('The budget starts again at 2026-11-28T00:00:00.000Z.');
    expect(await keyMailJobs()).toBe(2);
    expect(smtp.mails).toHaveLength(2);
  });
});
