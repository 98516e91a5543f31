import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Test } from './support/contract-request.js';
import { openDashboardApp, type DashboardApp } from './support/dashboard-app.js';
import { as, openOrganization, recordSubmitter, ROLES, VIAS, type Method, type Person, type Role, type Via } from './support/organization-fixture.js';

/**
 * docs/organizations.md, "What each endpoint needs", row by row: every /api/v1 endpoint, for a caller
 * whose role in the organization is owner, admin or member, with an API key of that member and with the
 * dashboard's session selecting the organization (X-Gengate-Organization). A refused call answers its
 * status and error type and changes nothing (the row's `state` reads the same before and after).
 */

interface Ctx {
  readonly h: DashboardApp;
  readonly org: string;
  readonly role: Role;
  readonly via: Via;
  readonly me: Person;
  /** Another member of the organization than the caller (a `member` for owners and admins, the admin for a member). */
  readonly other: Person;
  readonly people: Record<Role, Person>;
  call(method: Method, path: string, who?: Person, via?: Via): Test;
}

interface Row {
  readonly endpoint: string;
  readonly expect: Readonly<Record<Role, number>>;
  /** The error type of a refusal (default: insufficient_role for 403). */
  readonly refusal?: string;
  /** Prepares what the call needs (a task, a key, an alert) and returns it. */
  readonly setup?: (c: Ctx) => Promise<string>;
  readonly call: (c: Ctx, prepared: string) => Test;
  /** What a refused call must leave unchanged. */
  readonly state?: (c: Ctx, prepared: string) => Promise<unknown>;
  /** More checks of an allowed call's answer. */
  readonly check?: (c: Ctx, body: unknown, prepared: string) => Promise<void> | void;
}

const ALL: Record<Role, number> = { owner: 200, admin: 200, member: 200 };
const MANAGERS: Record<Role, number> = { owner: 200, admin: 200, member: 403 };
const OWNER_ONLY: Record<Role, number> = { owner: 200, admin: 403, member: 403 };
const OWN_ONLY: Record<Role, number> = { owner: 200, admin: 200, member: 404 };

const one = async (c: Ctx, sql: string, args: unknown[]) => (await c.h.pool.query(sql, args)).rows;

/** A waiting task submitted by `who` with their key (no worker runs in this app: it stays waiting). */
async function taskOf(c: Ctx, who: Person): Promise<string> {
  const res = await c.call('post', '/run/sandbox.echo-chat', who, 'key').send({ prompt: 'hello' }).expect(200);
  const id = res.body.task_id as string;
  await recordSubmitter(c.h, id, who.userId);
  return id;
}

async function keyOf(c: Ctx, who: Person): Promise<string> {
  return (await c.call('post', '/api-keys', who, 'session').send({ name: 'another' }).expect(201)).body.id as string;
}

let invited = 0;
const freshEmail = () => `invitee-${++invited}@example.com`;

const ROWS: readonly Row[] = [
  { endpoint: 'POST /run/{model_id}', expect: ALL, call: (c) => c.call('post', '/run/sandbox.echo-chat').send({ prompt: 'hi' }) },
  { endpoint: 'GET /run/tasks/{id} (own task)', expect: ALL, setup: (c) => taskOf(c, c.me), call: (c, id) => c.call('get', `/run/tasks/${id}`) },
  {
    endpoint: "GET /run/tasks/{id} (another member's task)",
    expect: OWN_ONLY,
    refusal: 'task_not_found',
    setup: (c) => taskOf(c, c.other),
    call: (c, id) => c.call('get', `/run/tasks/${id}`),
  },
  {
    endpoint: "POST /run/tasks/{id}/cancel (another member's task)",
    expect: OWN_ONLY,
    refusal: 'task_not_found',
    setup: (c) => taskOf(c, c.other),
    call: (c, id) => c.call('post', `/run/tasks/${id}/cancel`),
    state: (c, id) => one(c, 'select status, error_message from gengate.tasks where id = $1', [id]),
  },
  {
    endpoint: "GET /run/tasks/{id}/callbacks (another member's task)",
    expect: OWN_ONLY,
    refusal: 'task_not_found',
    setup: (c) => taskOf(c, c.other),
    call: (c, id) => c.call('get', `/run/tasks/${id}/callbacks`),
  },
  {
    endpoint: 'GET /run/tasks',
    expect: ALL,
    setup: async (c) => `${await taskOf(c, c.other)} ${await taskOf(c, c.me)}`,
    call: (c) => c.call('get', '/run/tasks?per_page=100'),
    check: (c, body, prepared) => {
      const [others, mine] = prepared.split(' ');
      const ids = (body as { data: { task_id: string }[] }).data.map((t) => t.task_id);
      expect(ids).toContain(mine);
      if (c.role === 'member') expect(ids).not.toContain(others);
      else expect(ids).toContain(others);
    },
  },
  { endpoint: 'GET /models', expect: ALL, call: (c) => c.call('get', '/models') },
  { endpoint: 'GET /pricing', expect: ALL, call: (c) => c.call('get', '/pricing') },
  { endpoint: 'POST /models/{model_id}/quote', expect: ALL, call: (c) => c.call('post', '/models/sandbox.echo-chat/quote').send({ prompt: 'hi' }) },
  {
    endpoint: 'GET /api-keys',
    expect: ALL,
    call: (c) => c.call('get', '/api-keys'),
    check: (c, body) => {
      const ids = (body as { data: { id: string }[] }).data.map((k) => k.id);
      expect(ids).toContain(c.me.keyId);
      if (c.role === 'member') expect(ids).not.toContain(c.other.keyId);
      else expect(ids).toContain(c.other.keyId);
    },
  },
  {
    endpoint: 'POST /api-keys',
    expect: { owner: 201, admin: 201, member: 201 },
    call: (c) => c.call('post', '/api-keys').send({ name: 'mine' }),
    check: async (c, body) => {
      const [row] = await one(c, 'select user_id, member_id from gengate.api_keys where id = $1', [(body as { id: string }).id]);
      expect(row).toEqual({ user_id: c.org, member_id: c.me.userId });
    },
  },
  { endpoint: 'PUT /api-keys/{id} (own key: name)', expect: ALL, call: (c) => c.call('put', `/api-keys/${c.me.keyId}`).send({ name: `renamed by ${c.via}` }) },
  {
    endpoint: 'PUT /api-keys/{id} (own key: limits)',
    expect: MANAGERS,
    setup: (c) => keyOf(c, c.me),
    call: (c, id) => c.call('put', `/api-keys/${id}`).send({ rate_limit_per_minute: 100, spend_limit: 5 }),
    state: (c, id) => one(c, 'select name, rate_limit_per_minute, spend_limit_micro from gengate.api_keys where id = $1', [id]),
  },
  {
    endpoint: "PUT /api-keys/{id} (another member's key)",
    expect: OWN_ONLY,
    refusal: 'api_key_not_found',
    setup: (c) => keyOf(c, c.other),
    call: (c, id) => c.call('put', `/api-keys/${id}`).send({ name: 'taken over' }),
    state: (c, id) => one(c, 'select name from gengate.api_keys where id = $1', [id]),
  },
  {
    endpoint: "DELETE /api-keys/{id} (another member's key)",
    expect: OWN_ONLY,
    refusal: 'api_key_not_found',
    setup: (c) => keyOf(c, c.other),
    call: (c, id) => c.call('delete', `/api-keys/${id}`),
    state: (c, id) => one(c, 'select revoked_at from gengate.api_keys where id = $1', [id]),
  },
  { endpoint: 'DELETE /api-keys/{id} (own key)', expect: ALL, setup: (c) => keyOf(c, c.me), call: (c, id) => c.call('delete', `/api-keys/${id}`) },
  {
    endpoint: 'GET /billing/balance',
    expect: ALL,
    call: (c) => c.call('get', '/billing/balance'),
    check: async (c, body) => {
      const [row] = await one(c, 'select balance_micro::text as b from gengate.accounts where user_id = $1', [c.org]);
      expect((body as { credits: number }).credits * 1_000_000).toBeCloseTo(Number(row.b), 0);
    },
  },
  { endpoint: 'GET /billing/transactions', expect: MANAGERS, call: (c) => c.call('get', '/billing/transactions') },
  {
    endpoint: 'POST /billing/topup',
    expect: OWNER_ONLY,
    call: (c) => c.call('post', '/billing/topup').send({ amount: 1 }),
    state: (c) => one(c, 'select count(*)::int as n from gengate.transactions where user_id = $1', [c.org]),
  },
  { endpoint: 'GET /billing/alerts', expect: MANAGERS, call: (c) => c.call('get', '/billing/alerts') },
  {
    endpoint: 'POST /billing/alerts',
    expect: { owner: 201, admin: 403, member: 403 },
    call: (c) => c.call('post', '/billing/alerts').send({ threshold: 5 }),
    state: (c) => one(c, 'select count(*)::int as n from gengate.balance_alerts where user_id = $1', [c.org]),
  },
  {
    endpoint: 'DELETE /billing/alerts/{id}',
    expect: OWNER_ONLY,
    setup: async (c) => (await c.call('post', '/billing/alerts', c.people.owner, 'key').send({ threshold: 7 }).expect(201)).body.id as string,
    call: (c, id) => c.call('delete', `/billing/alerts/${id}`),
    state: (c, id) => one(c, 'select id from gengate.balance_alerts where id = $1', [id]),
  },
  { endpoint: 'GET /webhook-secret', expect: OWNER_ONLY, call: (c) => c.call('get', '/webhook-secret') },
  {
    endpoint: 'POST /webhook-secret/rotate',
    expect: OWNER_ONLY,
   
    call: (c) => c.call('post', '/webhook-secret/rotate'),
    check: async (c, body) => {
      // The secret answered is the one callbacks are signed with: another read gives it back.
      const again = await c.call('get', '/webhook-secret').expect(200);
      expect(again.body.secret).toBe((body as { secret: string }).secret);
    },
  },
  { endpoint: 'GET /usage', expect: ALL, call: (c) => c.call('get', '/usage') },
  {
    endpoint: 'GET /organizations',
    expect: ALL,
    call: (c) => c.call('get', '/organizations'),
    check: (c, body) => expect((body as { data: { id: string; role: string }[] }).data).toContainEqual(expect.objectContaining({ id: c.org, role: c.role })),
  },
  {
    endpoint: 'GET /organizations/{id}',
    expect: ALL,
    call: (c) => c.call('get', `/organizations/${c.org}`),
    check: (c, body) => expect(body).toMatchObject({ id: c.org, role: c.role, personal: false }),
  },
  { endpoint: 'GET /organizations/{id}/members', expect: ALL, call: (c) => c.call('get', `/organizations/${c.org}/members`) },
  {
    endpoint: 'POST /organizations',
    expect: { owner: 201, admin: 201, member: 201 },
    call: (c) => c.call('post', '/organizations').send({ name: `${c.role}'s own` }),
    check: (_c, body) => expect(body).toMatchObject({ role: 'owner', personal: false }),
  },
  {
    endpoint: 'PATCH /organizations/{id}',
    expect: OWNER_ONLY,
    call: (c) => c.call('patch', `/organizations/${c.org}`).send({ name: `Renamed by ${c.role}` }),
    state: (c) => one(c, 'select name from gengate.organizations where id = $1', [c.org]),
  },
  {
    endpoint: "PATCH /organizations/{id}/members/{user_id} (a member's spend limit)",
    expect: MANAGERS,
    call: (c) => c.call('patch', `/organizations/${c.org}/members/${c.people.member.userId}`).send({ spend_limit: 500, budget_period: 'month' }),
    state: (c) => one(c, 'select spend_limit_micro, budget_period from gengate.organization_members where organization_id = $1 and user_id = $2', [c.org, c.people.member.userId]),
  },
  {
    endpoint: "PATCH /organizations/{id}/members/{user_id} (a member's role)",
    expect: OWNER_ONLY,
    call: (c) => c.call('patch', `/organizations/${c.org}/members/${c.people.member.userId}`).send({ role: 'member' }),
    state: (c) => one(c, 'select role from gengate.organization_members where organization_id = $1 and user_id = $2', [c.org, c.people.member.userId]),
  },
  { endpoint: 'GET /organizations/{id}/invitations', expect: MANAGERS, call: (c) => c.call('get', `/organizations/${c.org}/invitations`) },
  {
    endpoint: 'POST /organizations/{id}/invitations (role member)',
    expect: { owner: 201, admin: 201, member: 403 },
    call: (c) => c.call('post', `/organizations/${c.org}/invitations`).send({ email: freshEmail(), role: 'member' }),
    state: (c) => one(c, 'select count(*)::int as n from gengate.organization_invitations where organization_id = $1', [c.org]),
  },
  {
    endpoint: 'POST /organizations/{id}/invitations (role admin)',
    expect: { owner: 201, admin: 403, member: 403 },
    call: (c) => c.call('post', `/organizations/${c.org}/invitations`).send({ email: freshEmail(), role: 'admin' }),
    state: (c) => one(c, 'select count(*)::int as n from gengate.organization_invitations where organization_id = $1', [c.org]),
  },
  {
    endpoint: 'DELETE /organizations/{id}/invitations/{invitation_id}',
    expect: { owner: 204, admin: 204, member: 403 },
    setup: async (c) =>
      (await c.call('post', `/organizations/${c.org}/invitations`, c.people.owner, 'key').send({ email: freshEmail() }).expect(201)).body.id as string,
    call: (c, id) => c.call('delete', `/organizations/${c.org}/invitations/${id}`),
    state: (c, id) => one(c, 'select revoked_at from gengate.organization_invitations where id = $1', [id]),
  },
];

describe('organizations: what each endpoint needs, per role, with a key and with a session', () => {
  let h: DashboardApp;
  let org: string;
  let people: Record<Role, Person>;

  beforeAll(async () => {
    h = await openDashboardApp();
    ({ id: org, people } = await openOrganization(h, 'roles'));
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  for (const row of ROWS) {
    for (const role of ROLES) {
      for (const via of VIAS) {
        const status = row.expect[role];
        const allowed = status < 400;
        it(`${row.endpoint} — ${role} with ${via === 'key' ? 'an API key' : 'the session'}: ${allowed ? status : `${status} ${row.refusal ?? 'insufficient_role'}`}`, async () => {
          const other = role === 'member' ? people.admin : people.member;
          const c: Ctx = {
            h,
            org,
            role,
            via,
            me: people[role],
            other,
            people,
            call: (method, path, who = people[role], by = via) => as(h, who, by, method, path, org),
          };
          const prepared = row.setup ? await row.setup(c) : '';
          const before = row.state ? await row.state(c, prepared) : null;
          const res = await row.call(c, prepared);
          expect(res.status, JSON.stringify(res.body)).toBe(status);
          if (allowed) {
            await row.check?.(c, res.body, prepared);
          } else {
            expect(res.body.error.type).toBe(status === 403 ? 'insufficient_role' : row.refusal);
            if (row.state) expect(await row.state(c, prepared)).toEqual(before);
          }
        });
      }
    }
  }
});
