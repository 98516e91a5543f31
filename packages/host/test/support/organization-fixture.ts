import { expect } from 'vitest';
import request, { type Test } from './contract-request.js';
import { ORIGIN, type DashboardApp } from './dashboard-app.js';

export type Role = 'owner' | 'admin' | 'member';
export type Via = 'key' | 'session';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];
export const VIAS: readonly Via[] = ['key', 'session'];

/** One person of the organization: their session (selecting it with X-Gengate-Organization) and an API key of theirs in it. */
export interface Person {
  readonly userId: string;
  readonly email: string;
  readonly cookie: string;
  readonly csrf: string;
  /** A key of the organization that belongs to this member. */
  readonly key: string;
  readonly keyId: string;
}

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * A request as `who`: with an API key (`Authorization: Bearer`), or with the dashboard's session and
 * `X-Gengate-Organization` naming `organization` (when given).
 */
export function as(h: DashboardApp, who: Person, via: Via, method: Method, path: string, organization: string | null): Test {
  const t = request(h.app)[method](`/api/v1${path}`);
  if (via === 'key') return t.set('Authorization', `Bearer ${who.key}`);
  const s = t.set('Origin', ORIGIN).set('Cookie', who.cookie).set('X-CSRF-Token', who.csrf);
  return organization === null ? s : s.set('X-Gengate-Organization', organization);
}

/** Signs `email` in (a user with no credits is created first). */
export async function signedIn(h: DashboardApp, email: string): Promise<{ userId: string; cookie: string; csrf: string }> {
  await h.gengate.admin.createUser({ email, credits: 0 });
  return h.signIn(email);
}

/** The token of the newest invitation mail to `email`. */
export function invitationToken(h: DashboardApp, email: string): string {
  const mail = [...h.invitationMails].reverse().find((m) => m.to.toLowerCase() === email.toLowerCase());
  if (!mail) throw new Error(`no invitation mail to ${email}`);
  return mail.token;
}

/**
 * An organization made over HTTP: `owner` creates it (their session, personal organization), invites an
 * admin and a member, who accept with their sessions; each then creates a key of their own in it (their
 * session, selecting it). The organization buys `credits` (a top-up the operator completes).
 */
export async function openOrganization(h: DashboardApp, tag: string, credits = 1000): Promise<{ id: string; people: Record<Role, Person> }> {
  const emails: Record<Role, string> = { owner: `owner-${tag}@example.com`, admin: `admin-${tag}@example.com`, member: `member-${tag}@example.com` };
  const sessions = {
    owner: await signedIn(h, emails.owner),
    admin: await signedIn(h, emails.admin),
    member: await signedIn(h, emails.member),
  };
  const bare = (role: Role, method: Method, path: string, organization: string | null) =>
    as(h, { ...sessions[role], email: emails[role], key: '', keyId: '' }, 'session', method, path, organization);
  const created = await bare('owner', 'post', '/organizations', null).send({ name: `Team ${tag}` }).expect(201);
  const id = created.body.id as string;
  for (const role of ['admin', 'member'] as const) {
    await bare('owner', 'post', `/organizations/${id}/invitations`, id).send({ email: emails[role], role }).expect(201);
    const joined = await bare(role, 'post', '/invitations/accept', null).send({ token: invitationToken(h, emails[role]) }).expect(200);
    expect(joined.body).toMatchObject({ id, role });
  }
  // Topped up as any account is: the owner starts a purchase, the operator completes it (manual processor).
  const topup = await bare('owner', 'post', '/billing/topup', id).send({ amount: credits / 100 }).expect(200);
  await h.gengate.admin.completePurchase(topup.body.transaction_id as string);
  const people = {} as Record<Role, Person>;
  for (const role of ['owner', 'admin', 'member'] as const) {
    const key = await bare(role, 'post', '/api-keys', id).send({ name: `${role}'s key` }).expect(201);
    people[role] = { ...sessions[role], email: emails[role], key: key.body.key as string, keyId: key.body.id as string };
  }
  return { id, people };
}

/**
 * Stands in for h-member-limits' intake (gengate_submit_task with p_member_id, migration 026), which
 * writes tasks.member_id at submission: on a tree with it, this changes no row.
 */
export async function recordSubmitter(h: DashboardApp, taskId: string, memberId: string): Promise<void> {
  await h.pool.query('update gengate.tasks set member_id = $2 where id = $1 and member_id is null', [taskId, memberId]);
}
