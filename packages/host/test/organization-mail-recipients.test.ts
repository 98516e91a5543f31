import type { AuthContext } from '@gengate/core';
import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { tempDataDir, waitFor } from './support/spawn-server.js';

/**
 * Who gets the mails of a team's organization (its id is no user's, so "the user of the account" finds
 * nobody): a balance alert mails every owner of the organization; a key's soft-threshold mail goes to the
 * key's member. The host runs whole (API and workers) with a real SMTP server. The organization is made
 * through the use cases, its other members written straight into organization_members.
 */
describe("mail recipients of a team's organization", () => {
  let db: TestDatabase;
  let smtp: SmtpCapture;
  let server: RunningServer;
  let admin: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    smtp = await startSmtpCapture();
    const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), PORT: '0', DASHBOARD_ENABLED: 'false', SANDBOX_LATENCY_MS: '20', SMTP_URL: smtp.url, MAIL_FROM: 'gengate <alerts@gengate.test>' };
    server = await startServer(loadConfig(env), { logger: pino({ level: 'silent' }) });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await server?.close();
    await smtp?.close();
    await db?.drop();
  });

  it('mails a balance alert to every owner and a key budget mail to the key’s member', { timeout: 60_000 }, async () => {
    const g = server.gengate;
    const [ann, ben, cat] = await Promise.all(['ann', 'ben', 'cat'].map(async (n) => (await g.admin.createUser({ email: `${n}@team.example` })).user_id));
    const org = (await g.organizations.create({ userId: ann!, apiKeyId: null }, { name: 'Team' })).id;
    await admin.query(`insert into gengate.organization_members (organization_id, user_id, role) values ($1, $2, 'owner'), ($1, $3, 'member')`, [org, ben, cat]);
    const asAnn: AuthContext = { userId: org, memberId: ann!, apiKeyId: null };
    await g.admin.completePurchase((await g.billing.topup(asAnn, { amount: 1 })).transaction_id); // 100 credits
    await g.billing.createAlert(asAnn, { threshold: 99 });
    // Cat's key in the team's organization, its budget set by the owner (a member may not set limits).
    const created = await g.keys.create({ userId: org, memberId: cat!, apiKeyId: null }, { name: 'cat-bot' });
    await g.keys.update(asAnn, created.id, { spend_limit: 10, budget_period: 'day', soft_threshold_percent: 10 });
    expect((await admin.query('select member_id from gengate.api_keys where id = $1', [created.id])).rows).toEqual([{ member_id: cat }]);

    // One 2-credit image with cat's key: the balance goes below 99 and the key reaches 10 % of its limit.
    const res = await fetch(`${server.url}/api/v1/run/sandbox.pixel-image`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'coin', image_params: { width: 64, height: 64 } }),
    });
    expect(res.status).toBe(200);
    const { task_id: taskId } = (await res.json()) as { task_id: string };
    await waitFor(async () => ((await g.getTask.execute({ userId: org, apiKeyId: null }, taskId)).status === 'success' ? true : null), { timeoutMs: 20_000, what: `task ${taskId}` });

    const mails = await smtp.waitFor(3);
    const alerts = mails.filter((m) => m.unfolded.includes('balance alert'));
    expect(alerts.map((m) => m.to).sort()).toEqual([['ann@team.example'], ['ben@team.example']]);
    const keyMails = mails.filter((m) => m.unfolded.includes("Your API key 'cat-bot'"));
    expect(keyMails.map((m) => m.to)).toEqual([['cat@team.example']]);
    expect(smtp.mails).toHaveLength(3);
  });
});
