import { createTestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/** The dashboard as `gengate serve` mounts it, without SMTP_URL: the sign-in link goes to the log. */
describe('standalone dashboard without SMTP', () => {
  let db: { url: string; drop(): Promise<void> };
  let server: SpawnedServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SMTP_URL: '' };
    server = await spawnServer(env);
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('prints the dashboard URL, writes the sign-in link to the log, and the CLI sets the operator role', async () => {
    await waitFor(async () => server.output().includes(`gengate dashboard: ${server.url}/dashboard/\n`) || null, { timeoutMs: 30_000, what: 'the dashboard URL' });
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard/');

    await runCli(['users', 'create', '--email', 'log-link@example.com'], env);
    const origin = server.url;
    const sent = await fetch(`${server.url}/dashboard/api/auth/link`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: origin },
      body: JSON.stringify({ email: 'log-link@example.com' }),
    });
    expect(sent.status).toBe(200);
    // The pre-sign-in cookie binds the link to this "browser": used with it, the link signs in at once.
    const preSignIn = (sent.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(preSignIn).toMatch(/^gengate_sign_in=[A-Za-z0-9_-]{43}$/);
    const token = await waitFor(async () => /\/dashboard\/sign-in#token=([A-Za-z0-9_-]{43})/.exec(server.output())?.[1], {
      timeoutMs: 10_000,
      what: 'the sign-in link in the log',
    });
    expect(server.output()).toMatch(/mails \(balance alerts, dashboard sign-in links\) are written to the log/);
    const verified = await fetch(`${server.url}/dashboard/api/auth/verify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: origin, Cookie: preSignIn },
      body: JSON.stringify({ token }),
    });
    expect(verified.status).toBe(200);
    const body = (await verified.json()) as { signed_in: boolean; user: { role: string }; csrf_token: string };
    expect(body.signed_in).toBe(true);
    expect(body.user.role).toBe('user');
    const cookie = (verified.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

    const role = JSON.parse(await runCli(['users', 'role', '--email', 'LOG-LINK@example.com', '--operator'], env)) as { role: string };
    expect(role.role).toBe('operator');
    const users = await fetch(`${server.url}/dashboard/api/operator/users`, { headers: { Cookie: cookie, 'X-CSRF-Token': body.csrf_token } });
    expect(users.status).toBe(200);
    await expect(runCli(['users', 'role', '--email', 'nobody@example.com', '--operator'], env)).rejects.toThrow(/No user with e-mail nobody@example.com/);
  });
});
