import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '@gengate/core/internal';
import { openApiContract } from './support/openapi-contract.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver that answers the given statuses in turn (then 200) and keeps every request. */
async function receiver(statuses: number[]): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const METRICS_TOKEN = 'callbacks-test-metrics-token';

/** gengate_callbacks_total by result, from the server's /metrics (outside the API prefix: not contract-checked). */
async function callbackCounts(server: SpawnedServer): Promise<Record<'delivered' | 'retried' | 'abandoned', number>> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const value = (result: string) => Number(new RegExp(`^gengate_callbacks_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { delivered: value('delivered'), retried: value('retried'), abandoned: value('abandoned') };
}

describe('task callbacks', () => {
  const servers: SpawnedServer[] = [];
  const dbs: TestDatabase[] = [];

  afterAll(async () => {
    for (const s of servers) await s.stop();
    for (const d of dbs) await d.drop();
  });

  /** A host on its own database, so hosts with different callback settings never share a queue. */
  async function host(extra: NodeJS.ProcessEnv) {
    const db = await createTestDatabase();
    dbs.push(db);
    const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '20', CALLBACK_RETRY_DELAY_SECONDS: '1', METRICS_TOKEN, ...extra };
    const email = `cb${Math.random().toString(36).slice(2)}@example.com`;
    const key = (JSON.parse(await runCli(['users', 'create', '--email', email, '--credits', '100'], env)) as { api_key: string }).api_key;
    const server = await spawnServer(env);
    servers.push(server);
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });
    return { server, api };
  }

  it('retries a receiver that answers 500 three times, then delivers one signed callback recorded as delivered', { timeout: 60_000 }, async () => {
    const hook = await receiver([500, 500, 500]);
    const { api, server } = await host({ CALLBACK_ALLOW_PRIVATE: 'true' });
    const { task_id: taskId } = (await (await api('/run/sandbox.echo-chat', { method: 'POST', body: JSON.stringify({ prompt: 'hi', callback_url: hook.url }) })).json()) as { task_id: string };
    await waitFor(async () => (hook.received.length >= 4 ? true : null), { timeoutMs: 45_000, intervalMs: 100, what: 'four callback attempts' });
    const { secret } = (await (await api('/webhook-secret')).json()) as { secret: string };
    const last = hook.received[3] as Received;
    const verified = new Webhook(secret).verify(last.body, {
      'webhook-id': String(last.headers['webhook-id']),
      'webhook-timestamp': String(last.headers['webhook-timestamp']),
      'webhook-signature': String(last.headers['webhook-signature']),
    }) as { task_id: string; status: string; result_urls: string[]; error_message: string | null; created_at: string };
    expect(Object.keys(verified).sort()).toEqual(['created_at', 'error_message', 'result_urls', 'status', 'task_id']);
    expect(verified).toMatchObject({ task_id: taskId, status: 'success', error_message: null });
    expect(new Set(hook.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([`msg_${taskId}`]));
    // Every delivery is the taskFinished webhook of docs/openapi.yaml: body, signature headers, user agent.
    for (const r of hook.received) expect(openApiContract().checkWebhook('taskFinished', r.headers, r.body)).toEqual([]);
    const attempts = await waitFor(
      async () => {
        const a = ((await (await api(`/run/tasks/${taskId}/callbacks`)).json()) as { data: { delivered: boolean; status_code: number }[] }).data;
        return a.length >= 4 ? a : null;
      },
      { timeoutMs: 30_000, what: 'attempts recorded' },
    );
    expect(attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 200]);
    expect(attempts.filter((a) => a.delivered)).toHaveLength(1);
    expect(await callbackCounts(server)).toEqual({ delivered: 1, retried: 3, abandoned: 0 });
    // The delivered attempt's record completed its job in the same statement (the fourth attempt: 3 retries).
    const c = new pg.Client({ connectionString: dbs.at(-1)?.url });
    await c.connect();
    try {
      const { rows } = await c.query<{ state: string; retry_count: number }>(`select state, retry_count from pgboss.job where name = 'gengate-callback' and data->>'taskId' = $1`, [taskId]);
      expect(rows).toEqual([{ state: 'completed', retry_count: 3 }]);
    } finally {
      await c.end();
    }
    // A rotated secret no longer verifies old signatures.
    const rotated = (await (await api('/webhook-secret/rotate', { method: 'POST' })).json()) as { secret: string };
    expect(rotated.secret).not.toBe(secret);
    await hook.close();
  });

  it('never sends to loopback, private, link-local or metadata targets by default, and the task still ends', { timeout: 60_000 }, async () => {
    const { api, server } = await host({});
    const targets = ['http://127.0.0.1:9/x', 'http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:9/x', 'http://localhost:9/x'];
    const ids: string[] = [];
    for (const callback_url of targets) {
      const res = await api('/run/sandbox.echo-chat', { method: 'POST', body: JSON.stringify({ prompt: 'x', callback_url }) });
      ids.push(((await res.json()) as { task_id: string }).task_id);
    }
    for (const id of ids) {
      const attempts = await waitFor(
        async () => {
          const a = ((await (await api(`/run/tasks/${id}/callbacks`)).json()) as { data: { delivered: boolean; error: string }[] }).data;
          return a.length > 0 ? a : null;
        },
        { timeoutMs: 20_000, what: `the refusal of ${id}` },
      );
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ delivered: false });
      expect(attempts[0]?.error).toMatch(/^not sent: /);
      expect(((await (await api(`/run/tasks/${id}`)).json()) as { status: string }).status).toBe('success');
    }
    expect(await callbackCounts(server)).toEqual({ delivered: 0, retried: 0, abandoned: targets.length });
  });

  it('classifies addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '0.0.0.0', '100.64.0.1']) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isForbiddenAddress(a), a).toBe(false);
  });
});
