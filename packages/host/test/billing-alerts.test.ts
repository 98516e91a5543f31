import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing/host';
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

  const apiAs = (path: string, init: RequestInit = {}, as = key) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${as}`, 'Content-Type': 'application/json', ...init.headers } });

  /** Runs one sandbox task to success and returns the balance after it. */
  async function spend(model: string, body: object, as = key): Promise<number> {
    const api = (path: string, init: RequestInit = {}) => apiAs(path, init, as);
    const { task_id: taskId } = (await (await api(`/run/${model}`, { method: 'POST', body: JSON.stringify(body) })).json()) as { task_id: string };
    await waitFor(async () => (((await (await api(`/run/tasks/${taskId}`)).json()) as { status: string }).status === 'success' ? true : null), {
      timeoutMs: 20_000,
      what: `task ${taskId}`,
    });
    return ((await (await api('/billing/balance')).json()) as { credits: number }).credits;
  }

  const api = (path: string, init: RequestInit = {}) => apiAs(path, init);

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

  it('accepts a threshold of 0.000123 credits (six decimals, like the balance) and mails once when it is crossed', { timeout: 60_000 }, async () => {
    const tiny = JSON.parse(await runCli(['users', 'create', '--email', 'micro-alert@example.com', '--credits', '0.0002'], env)) as { api_key: string };
    const created = await apiAs('/billing/alerts', { method: 'POST', body: JSON.stringify({ threshold: 0.000123 }) }, tiny.api_key);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ threshold: 0.000123, armed: true });
    const jobsBefore = await mailJobs();
    const mailsBefore = smtp.mails.length;
    // One input and one output token of sandbox.echo-chat: 10 + 30 = 40 micro-credits.
    const chat = { prompt: 'hi', llm_params: { max_tokens: 1 } };
    expect(await spend('sandbox.echo-chat', chat, tiny.api_key)).toBe(0.00016);
    expect(await mailJobs()).toBe(jobsBefore);
    expect(await spend('sandbox.echo-chat', chat, tiny.api_key)).toBe(0.00012); // crosses 0.000123
    const mails = await smtp.waitFor(mailsBefore + 1);
    const mail = mails[mailsBefore];
    expect(mail?.to).toEqual(['micro-alert@example.com']);
    expect(mail?.unfolded).toContain('Your gengate balance is 0.00012 credits, below your alert threshold of 0.000123 credits.');
    expect(await spend('sandbox.echo-chat', chat, tiny.api_key)).toBe(0.00008); // still below: no second mail
    expect(await mailJobs()).toBe(jobsBefore + 1);
    const alerts = (await (await apiAs('/billing/alerts', {}, tiny.api_key)).json()) as { data: { threshold: number; armed: boolean }[] };
    expect(alerts.data).toEqual([expect.objectContaining({ threshold: 0.000123, armed: false })]);
    expect(smtp.mails.filter((m) => m.to.includes('micro-alert@example.com'))).toHaveLength(1);
  });
});
