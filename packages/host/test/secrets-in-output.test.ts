import { once } from 'node:events';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import { afterAll, describe, expect, it } from 'vitest';
import { cliProcess, spawnServer, tempDataDir } from './support/spawn-server.js';

/** No secret reaches any output: configuration errors name the setting, start-up logs name the database without its password. */
describe('no secret in any output', () => {
  let db: TestDatabase | null = null;

  afterAll(async () => {
    await db?.drop();
  });

  it('a rejected Stripe key, database URL and SMTP URL are named on stderr, never printed', async () => {
    const secrets = { stripe: 'sk_live_0123456789abcdefSECRET!', db: 'db-pa55-word-xyz', smtp: 'smtp-pa55-word-xyz' };
    const child = cliProcess(['serve'], {
      PORT: '0',
      GENGATE_DATA_DIR: tempDataDir(),
      PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: secrets.stripe,
      STRIPE_WEBHOOK_SECRET: 'whsec_ok',
      DATABASE_URL: `mysql://root:${secrets.db}@db.internal/app`,
      SMTP_URL: `smtp://user:${secrets.smtp}@smtp.internal:25:bad`,
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(out).toMatch(/STRIPE_SECRET_KEY: /);
    expect(out).toMatch(/DATABASE_URL: /);
    for (const s of Object.values(secrets)) expect(out).not.toContain(s);
  });

  it('start-up logs name the database by host, port and name only, and never print the SMTP password', { timeout: 60_000 }, async () => {
    db = await createTestDatabase();
    const url = new URL(db.url);
    // The machine's server trusts local connections, so any password works there; the embedded one has its own.
    if (!url.password) url.password = 'not-shown-pw-1234';
    const smtpPassword = 'smtp-not-shown-5678';
    const server = await spawnServer({
      DATABASE_URL: url.toString(),
      GENGATE_DATA_DIR: tempDataDir(),
      SMTP_URL: `smtp://mailer:${smtpPassword}@127.0.0.1:2525`,
      LOG_LEVEL: 'debug',
    });
    await fetch(`${server.url}/healthz`);
    expect(await server.stop()).toBe(0);
    const out = server.output();
    // The host the server connects to: a `host` parameter (the embedded server's socket directory) wins over the URL's host name.
    const host = url.searchParams.get('host') ?? url.hostname;
    expect(out).toContain(`"database":{"host":"${host}","port":${Number(url.port || 5432)},"name":"${url.pathname.slice(1)}"`);
    expect(out).not.toContain(decodeURIComponent(url.password));
    expect(out).not.toContain(smtpPassword);
  });
});
