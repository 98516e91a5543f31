import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createGengate, type Gengate } from '../../src/di/create-gengate.js';
import { MemoryBlobStore, createMemoryStores } from '../../src/memory/memory-unit-of-work.js';
import type { MemoryDatabase } from '../../src/memory/memory-database.js';
import type { InvitationMail } from '../../src/ports/invitation-mailer.js';
import type { UserRecord } from '../../src/model/user.js';
import type { AuthContext } from '../../src/services/auth-context.js';

/** A Gengate over the memory stores with a movable clock and the invitation mails kept. */
export function organizationKit() {
  const { db, scope, uow, organizations } = createMemoryStores();
  const mails: InvitationMail[] = [];
  let now = new Date('2026-03-01T12:00:00Z');
  const gengate: Gengate = createGengate({
    adapters: [],
    stores: scope,
    unitOfWork: uow,
    blobStore: new MemoryBlobStore(),
    resultUrls: { urlFor: (key) => `http://gengate.test/api/v1/files/${key}` },
    paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
    organizations,
    invitationMailer: { send: async (m) => void mails.push(m) },
    clock: { now: () => now },
  });
  const user = (local = `u-${randomUUID().slice(0, 8)}`): Promise<UserRecord> => scope.users.insert({ id: randomUUID(), email: `${local}@example.com` });
  /** The dashboard's session of `u` acting in `organizationId` (default: its personal organization). */
  const session = (u: UserRecord, organizationId: string = u.id): AuthContext => ({ userId: organizationId, memberId: u.id, apiKeyId: null });
  const orgs = gengate.organizations;
  /** Invites `u` into `orgId` by `inviter` and accepts, giving `u` the role. */
  async function join(inviter: AuthContext, orgId: string, u: UserRecord, role: 'owner' | 'admin' | 'member'): Promise<void> {
    now = new Date(now.getTime() + 1000); // members join one after another (listMembers orders by joined_at)
    await orgs.invite(inviter, orgId, { email: u.email, role });
    const mail = mails.at(-1);
    if (!mail) throw new Error('no invitation mail');
    await orgs.acceptInvitation(session(u), { token: mail.token });
  }
  return {
    db: db as MemoryDatabase,
    store: organizations,
    scope,
    gengate,
    orgs,
    mails,
    user,
    session,
    join,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** Runs `fn`, expects it to throw a GatewayError of `type` (and `param` when given), and returns nothing. */
export async function expectGatewayError(fn: () => Promise<unknown>, type: string, param?: string | null): Promise<void> {
  await expect(fn()).rejects.toMatchObject({ name: 'GatewayError', type, ...(param !== undefined ? { param } : {}) });
}
