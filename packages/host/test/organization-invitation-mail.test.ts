import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing/host';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { tempDataDir } from './support/spawn-server.js';

/** The host wires invitation mails to its mailer (SMTP_URL) and its public URL (PUBLIC_URL), like sign-in links. */
describe('organization invitation mails from the host', () => {
  let db: TestDatabase;
  let smtp: SmtpCapture;
  let server: RunningServer;

  beforeAll(async () => {
    db = await createTestDatabase();
    smtp = await startSmtpCapture();
    const env = {
      DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), PORT: '0', DASHBOARD_ENABLED: 'false', SMTP_URL: smtp.url,
      MAIL_FROM: 'gengate <team@gengate.test>', PUBLIC_URL: 'https://gw.example.org',
    };
    server = await startServer(loadConfig(env), { logger: pino({ level: 'silent' }) });
  });

  afterAll(async () => {
    await server?.close();
    await smtp?.close();
    await db?.drop();
  });

  it("mails the link to the public URL's dashboard; its token accepts the invitation", async () => {
    const orgs = server.gengate.organizations;
    const owner = await server.gengate.admin.createUser({ email: 'boss@example.com' });
    const invitee = await server.gengate.admin.createUser({ email: 'new.hire@example.com' });
    const org = await orgs.create({ userId: owner.user_id, memberId: owner.user_id, apiKeyId: null }, { name: 'Studio' });
    await orgs.invite({ userId: org.id, memberId: owner.user_id, apiKeyId: null }, org.id, { email: 'new.hire@example.com', role: 'admin' });
    const [mail] = await smtp.waitFor(1);
    expect(mail?.to).toEqual(['new.hire@example.com']);
    expect(mail?.unfolded).toContain('Studio');
    const token = /https:\/\/gw\.example\.org\/dashboard\/#\/invitations\/([A-Za-z0-9_-]{43})/.exec(mail?.unfolded ?? '')?.[1];
    expect(token).toBeDefined();
    const joined = await orgs.acceptInvitation({ userId: invitee.user_id, memberId: invitee.user_id, apiKeyId: null }, { token });
    expect(joined).toMatchObject({ id: org.id, name: 'Studio', role: 'admin' });
  });
});
