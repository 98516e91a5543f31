import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { createTestDatabase, describeHttpApiConformance, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordViolation } from '../../../packages/host/test/support/contract-violations.js';
import { openApiContract } from '../../../packages/host/test/support/openapi-contract.js';
import { createApp, GENGATE_MOUNT, type App } from '../src/create-app.js';

/**
 * The example app, started as its server.ts does (own users and sign-in, gengate at /ai): gengate's
 * black-box HTTP conformance suite passes against its mount with API keys, and its own signed-in users
 * run tasks with no API key.
 */
let db: TestDatabase;
let app: App;
let server: Server;
let base = '';
let users = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await createApp({
    databaseUrl: db.url,
    publicUrl: () => base,
    filesDir: join(mkdtempSync(join(tmpdir(), 'embed-express-')), 'files'),
    signupCredits: 3,
    adapters: [createSandboxAdapter({ latencyMs: { chat: 50, image: 50, video: 50 } })],
    shutdownGraceMs: 3_000,
  });
  await app.start();
  server = await new Promise<Server>((resolve) => {
    const s = app.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await app?.close();
  await db?.drop();
});

/**
 * A fetch that checks every exchange against docs/openapi.yaml (the mount /ai read as /api/v1); a
 * mismatch fails the test (test/vitest-contract-setup.ts), as for the standalone server's proxy.
 */
async function contractFetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const requestText = request.body ? await request.clone().text() : undefined;
  const response = await fetch(request);
  const type = response.headers.get('content-type') ?? '';
  const responseText = /^(application\/json|text\/)/i.test(type) ? await response.clone().text() : undefined;
  const url = new URL(request.url);
  const path = url.pathname.startsWith(`${GENGATE_MOUNT}/`) ? `/api/v1${url.pathname.slice(GENGATE_MOUNT.length)}` : url.pathname;
  for (const problem of openApiContract().check({
    method: request.method,
    url: `${path}${url.search}`,
    requestHeaders: Object.fromEntries(request.headers),
    requestBody: requestText || undefined,
    status: response.status,
    responseHeaders: Object.fromEntries(response.headers),
    responseText,
  })) {
    recordViolation(problem);
  }
  return response;
}

describeHttpApiConformance('examples/embed-express (gengate mounted at /ai)', {
  apiUrl: () => `${base}${GENGATE_MOUNT}`,
  fetch: contractFetch,
  // Machine clients: an operator-made user with an API key (what `gengate users create` does).
  createUser: async (credits) => ({ apiKey: (await app.gengate.gengate.admin.createUser({ email: `machine${++users}@example.com`, credits })).api_key }),
  models: { chat: 'sandbox.echo-chat', image: 'sandbox.pixel-image', video: 'sandbox.motion-video', failing: 'sandbox.always-fail' },
  taskTimeoutMs: 20_000,
});

/** A browser of the app: keeps its session cookie and CSRF token. */
async function signUp(email: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${base}/auth/sign-up`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse' }) });
  expect(res.status).toBe(201);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  expect(cookie).toMatch(/^app_session=/);
  return { cookie, csrf: ((await res.json()) as { csrf_token: string }).csrf_token };
}

type Browser = Awaited<ReturnType<typeof signUp>>;
type TaskView = { task_id: string; status: string; result_urls: string[] };

/** A request to gengate at /ai with a browser's session (cookie and CSRF token). */
function ai(browser: Browser, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${base}${GENGATE_MOUNT}${path}`, { ...init, headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'content-type': 'application/json' } });
}

/** Submits a prompt with a browser's session and polls the task until it ends. */
async function runToEnd(browser: Browser, model: string, prompt: string): Promise<TaskView> {
  const submitted = await ai(browser, `/run/${model}`, { method: 'POST', body: JSON.stringify({ prompt }) });
  expect(submitted.status).toBe(200);
  const { task_id } = (await submitted.json()) as { task_id: string };
  let task: TaskView;
  const until = Date.now() + 20_000;
  do {
    task = (await (await ai(browser, `/run/tasks/${task_id}`)).json()) as TaskView;
    if (Date.now() > until) throw new Error(`task still ${task.status}`);
  } while (task.status === 'waiting' || task.status === 'generating');
  return task;
}

async function errorOf(res: Response): Promise<{ status: number; type: string }> {
  return { status: res.status, type: ((await res.json()) as { error: { type: string } }).error.type };
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe("the app's own signed-in users", () => {
  it('run a task through /ai with their session and no API key, and are charged', async () => {
    const browser = await signUp('ada@example.com');

    // First use links (creates) the gengate user, with the app's sign-up credits.
    expect(((await (await ai(browser, '/billing/balance')).json()) as { credits: number }).credits).toBe(3);
    const task = await runToEnd(browser, 'sandbox.echo-chat', 'hello from my app');
    expect(task.status).toBe('success');
    expect(task.result_urls[0]?.startsWith(`${base}${GENGATE_MOUNT}/files/`)).toBe(true);
    expect(await (await fetch(task.result_urls[0] ?? '')).text()).toMatch(/^Sandbox reply to: hello from my app/);
    const balance = (await (await ai(browser, '/billing/balance')).json()) as { credits: number; held_credits: number };
    expect(balance.credits).toBeLessThan(3);
    expect(balance.held_credits).toBe(0);

    // The app user is linked to one gengate user (the one that ran the task), which has no API key of its own.
    const { rows } = await app.pool.query<{ gengate_user_id: string | null }>(`select gengate_user_id from users where email = 'ada@example.com'`);
    expect(rows[0]?.gengate_user_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await (await ai(browser, '/api-keys')).json()) as { data: unknown[] }).data).toEqual([]);
  });

  it("download their own result file; another user gets 404 on the task and 403 on the file's path without its signature", async () => {
    const alice = await signUp('alice@example.com');
    const bob = await signUp('bob@example.com');
    const task = await runToEnd(alice, 'sandbox.pixel-image', 'a fox for alice');
    expect(task.status).toBe('success');
    const url = new URL(task.result_urls[0] ?? '');
    expect(url.searchParams.get('signature')).toBeTruthy();
    expect(url.searchParams.get('expires')).toMatch(/^\d+$/);

    const own = await fetch(url);
    expect(own.status).toBe(200);
    expect([...new Uint8Array(await own.arrayBuffer()).subarray(0, 8)]).toEqual(PNG_SIGNATURE);

    expect(await errorOf(await ai(bob, `/run/tasks/${task.task_id}`))).toEqual({ status: 404, type: 'task_not_found' });
    const unsigned = `${url.origin}${url.pathname}`;
    for (const headers of [{ cookie: bob.cookie, 'x-csrf-token': bob.csrf }, { cookie: alice.cookie, 'x-csrf-token': alice.csrf }, {}]) {
      expect(await errorOf(await fetch(unsigned, { headers }))).toEqual({ status: 403, type: 'result_url_invalid' });
    }
  });

  it("have the app's page, which signs in on /auth and calls gengate at /ai with the CSRF token", async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("fetch('/ai' + path");
    expect(html).toContain("'x-csrf-token': csrf");
  });

  it('are refused without the CSRF token (a forged cross-site request) or without a session', async () => {
    const browser = await signUp('eve@example.com');
    const body = JSON.stringify({ prompt: 'forged' });
    const noCsrf = await fetch(`${base}${GENGATE_MOUNT}/run/sandbox.echo-chat`, { method: 'POST', headers: { cookie: browser.cookie, 'content-type': 'application/json' }, body });
    expect(noCsrf.status).toBe(401);
    const wrongCsrf = await fetch(`${base}${GENGATE_MOUNT}/models`, { headers: { cookie: browser.cookie, 'x-csrf-token': 'guess' } });
    expect(wrongCsrf.status).toBe(401);
    const signedOut = await fetch(`${base}${GENGATE_MOUNT}/models`, { headers: { 'x-csrf-token': browser.csrf } });
    expect(signedOut.status).toBe(401);
  });

  it('can make an API key for their machine clients, which then works without the session', async () => {
    const browser = await signUp('grace@example.com');
    const created = await fetch(`${base}${GENGATE_MOUNT}/api-keys`, {
      method: 'POST',
      headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'my script' }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const viaKey = await fetch(`${base}${GENGATE_MOUNT}/billing/balance`, { headers: { authorization: `Bearer ${key}` } });
    expect(viaKey.status).toBe(200);
    expect(((await viaKey.json()) as { credits: number }).credits).toBe(3);
  });
});
