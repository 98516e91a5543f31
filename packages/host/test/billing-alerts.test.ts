import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/** One mail per crossing below a threshold, none while below, one again after re-arming — through a real SMTP server. */
describe('balance alert mails', () => {
  let db: TestDatabase;
  let smtp: SmtpCapture;
  let server: SpawnedServer;
  let env: NodeJS.ProcessEnv;
  let key: string;
  let userId: string;

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });

  /** Runs one sandbox task to success and returns the balance after it. */
  async function spend(model: string, body: object): Promise<number> {
    const { task_id: taskId } = (await (await api(`/run/${model}`, { method: 'POST', body: JSON.stringify(body) })).json()) as { task_id: string };
    await waitFor(async () => (((await (await api(`/run/tasks/${taskId}`)).json()) as { status: string }).status === 'success' ? true : null), {
      timeoutMs: 20_000,
      what: `task ${taskId}`,
    });
    return ((await (await api('/billing/balance')).json()) as { credits: number }).credits;
  }

  async function mailJobs(): Promise<number> {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query<{ n: number }>(`select count(*)::int as n from pgboss.job where name = 'gengate-alert-mail'`);
    await c.end();
    return rows[0]?.n ?? 0;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    smtp = await startSmtpCapture();
    env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '20', SMTP_URL: smtp.url, MAIL_FROM: 'gengate <alerts@gengate.test>' };
    const created = JSON.parse(await runCli(['users', 'create', '--email', 'alert-me@example.com', '--credits', '100'], env)) as { api_key: string; user_id: string };
    key = created.api_key;
    userId = created.user_id;
    server = await spawnServer(env);
  });

  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    await db?.drop();
  });

  it('mails once per crossing, never while below, and again after the balance went back above', { timeout: 90_000 }, async () => {
    const alert = (await (await api('/billing/alerts', { method: 'POST', body: JSON.stringify({ threshold: 95 }) })).json()) as { id: string; armed: boolean };
    expect(alert.armed).toBe(true);
    const image = { prompt: 'coin', image_params: { width: 64, height: 64 } }; // 2 credits each

    expect(await spend('sandbox.pixel-image', image)).toBe(98);
    expect(await spend('sandbox.pixel-image', image)).toBe(96);
    expect(await mailJobs()).toBe(0);
    expect(await spend('sandbox.pixel-image', image)).toBe(94); // crosses 95
    const [first] = await smtp.waitFor(1);
    expect(first?.to).toEqual(['alert-me@example.com']);
    expect(first?.unfolded).toContain('Your gengate balance is 94 credits, below your alert threshold of 95 credits.');

    expect(await spend('sandbox.pixel-image', image)).toBe(92); // still below: no new mail job
    expect(await mailJobs()).toBe(1);
    expect(((await (await api('/billing/alerts')).json()) as { data: { armed: boolean }[] }).data[0]?.armed).toBe(false);

    await runCli(['credits', 'grant', '--user', userId, '--credits', '20'], env); // 112: re-armed
    expect(((await (await api('/billing/alerts')).json()) as { data: { armed: boolean }[] }).data[0]?.armed).toBe(true);
    expect(await spend('sandbox.motion-video', { prompt: 'wave', video_params: { duration: 5 } })).toBe(87); // 25 credits: crosses again
    const mails = await smtp.waitFor(2);
    expect(mails[1]?.unfolded).toContain('Your gengate balance is 87 credits, below your alert threshold of 95 credits.');
    expect(await mailJobs()).toBe(2);
    expect(smtp.mails).toHaveLength(2);
  });
});
