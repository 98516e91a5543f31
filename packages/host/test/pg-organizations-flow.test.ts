import { randomUUID } from 'node:crypto';
import { createGengate, MemoryBlobStore, type AuthContext, type Gengate } from '@gengate/core';
import { invitationMailer } from '@gengate/core/internal';
import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing/host';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../src/mail/create-mailer.js';
import { createBoss } from '../src/postgres/boss-queues.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { openPool } from './support/open-pool.js';

const logger = pino({ level: 'silent' });
const ORIGIN = 'https://gateway.example';

/** The organization use cases end to end on PostgreSQL, without HTTP: invitation mail through a real SMTP server. */
describe('organizations on PostgreSQL: create, invite by mail, accept with the link, remove with the keys', () => {
  let db: TestDatabase;
  let closePool: () => Promise<void>;
  let boss: PgBoss;
  let smtp: SmtpCapture;
  let gengate: Gengate;
  let query: (sql: string, args: unknown[]) => Promise<Record<string, unknown>[]>;

  beforeAll(async () => {
    db = await createTestDatabase();
    const { pool, close } = openPool(db.url, 6);
    closePool = close;
    query = async (sql, args) => (await pool.query<Record<string, unknown>>(sql, args)).rows;
    await runMigrations(pool, DEFAULT_SCHEMA);
    boss = await createBoss({ connectionString: db.url, logger });
    smtp = await startSmtpCapture();
    const { stores, unitOfWork, taskIntake, taskCompletion, organizations } = createPgStores(pool, boss, { schema: DEFAULT_SCHEMA });
    gengate = createGengate({
      adapters: [],
      stores,
      unitOfWork,
      taskIntake,
      taskCompletion,
      organizations,
      invitationMailer: invitationMailer(createMailer({ smtpUrl: smtp.url, from: 'gengate@example.com', logger }), () => ORIGIN),
      blobStore: new MemoryBlobStore(),
      resultUrls: { urlFor: (key) => `${ORIGIN}/api/v1/files/${key}` },
      paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
    });
  });

  afterAll(async () => {
    await smtp?.close();
    await boss?.stop({ graceful: false, timeout: 1_000 });
    await closePool?.();
    await db?.drop();
  });

  it('the whole flow', async () => {
    const owner = await gengate.admin.createUser({ email: 'owner@example.com', credits: 0 });
    const invitee = await gengate.admin.createUser({ email: 'invitee@example.com', credits: 0 });
    const session = (userId: string, orgId: string = userId): AuthContext => ({ userId: orgId, memberId: userId, apiKeyId: null });
    const orgs = gengate.organizations;

    // Every user has a personal organization (migration 025's trigger), listed first.
    expect((await orgs.list(session(owner.user_id))).data).toEqual([expect.objectContaining({ id: owner.user_id, personal: true, role: 'owner', name: 'owner@example.com' })]);
    const org = await orgs.create(session(owner.user_id), { name: 'Acme video team' });
    const asOwner = session(owner.user_id, org.id);

    const invitation = await orgs.invite(asOwner, org.id, { email: 'Invitee@example.com', role: 'member' });
    expect(invitation).toMatchObject({ status: 'pending', invited_by: 'owner@example.com', role: 'member' });
    const [mail] = await smtp.waitFor(1);
    expect(mail?.to).toEqual(['Invitee@example.com']);
    const token = /https:\/\/gateway\.example\/dashboard\/#\/invitations\/([A-Za-z0-9_-]{43})/.exec(mail?.unfolded ?? '')?.[1] ?? '';
    expect(token).toHaveLength(43);
    // Only the token's hash is stored.
    expect(await query(`select count(*)::int as n from gengate.organization_invitations where token_hash = $1`, [token])).toEqual([{ n: 0 }]);

    expect(await orgs.previewInvitation(session(invitee.user_id), { token })).toMatchObject({ organization: { id: org.id, name: 'Acme video team' }, status: 'pending' });
    await expect(orgs.acceptInvitation(session(owner.user_id), { token })).rejects.toMatchObject({ type: 'invitation_email_mismatch' });
    expect(await orgs.acceptInvitation(session(invitee.user_id), { token })).toMatchObject({ id: org.id, role: 'member' });
    await expect(orgs.acceptInvitation(session(invitee.user_id), { token })).rejects.toMatchObject({ type: 'invitation_not_found' });
    expect((await orgs.listMembers(session(invitee.user_id, org.id), org.id)).data.map((m) => [m.email, m.role])).toEqual([
      ['owner@example.com', 'owner'],
      ['invitee@example.com', 'member'],
    ]);

    // The member's key in the organization goes with the member; their personal key stays.
    const keyId = randomUUID();
    await query(
      `insert into gengate.api_keys (id, user_id, member_id, name, secret_hash, mask) values ($1, $2, $3, 'team key', $4, 'gg_…')`,
      [keyId, org.id, invitee.user_id, randomUUID()],
    );
    await expect(orgs.removeMember(session(invitee.user_id, org.id), org.id, owner.user_id)).rejects.toMatchObject({ type: 'insufficient_role' });
    await expect(orgs.removeMember(asOwner, org.id, owner.user_id)).rejects.toMatchObject({ type: 'last_owner' });
    await orgs.removeMember(asOwner, org.id, invitee.user_id);
    expect(await query(`select revoked_at is not null as revoked from gengate.api_keys where id = $1`, [keyId])).toEqual([{ revoked: true }]);
    expect(await query(`select count(*)::int as n from gengate.api_keys where user_id = $1 and revoked_at is null`, [invitee.user_id])).toEqual([{ n: 1 }]);
    await expect(orgs.get(session(invitee.user_id, org.id), org.id)).rejects.toMatchObject({ type: 'organization_not_found' });
  });
});
