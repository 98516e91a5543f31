import type { AuthContext } from '@gengate/core';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIRouter } from '../src/http/openai/create-openai-router.js';
import request from './support/contract-request.js';
import { createMemoryApp, type MemoryApp } from './support/memory-app.js';

type Role = 'owner' | 'admin' | 'member';

/**
 * The role gates live in the use cases, so the in-memory host answers as the PostgreSQL one does
 * (organizations-roles.test.ts). The organization is set up through the use cases as the dashboard's
 * session would (the memory app has no session seam), then used over HTTP with each member's key.
 */
describe('organizations on the in-memory host: the same gates', () => {
  let m: MemoryApp;
  let org: string;
  const key = { owner: '', admin: '', member: '' } as Record<Role, string>;
  const keyId = { owner: '', admin: '', member: '' } as Record<Role, string>;
  const task = { owner: '', admin: '', member: '' } as Record<Role, string>;

  const call = (role: Role) => ({
    get: (path: string) => request(m.app).get(`/api/v1${path}`).set('Authorization', `Bearer ${key[role]}`),
    post: (path: string, body: object = {}) => request(m.app).post(`/api/v1${path}`).set('Authorization', `Bearer ${key[role]}`).send(body),
    put: (path: string, body: object) => request(m.app).put(`/api/v1${path}`).set('Authorization', `Bearer ${key[role]}`).send(body),
    delete: (path: string) => request(m.app).delete(`/api/v1${path}`).set('Authorization', `Bearer ${key[role]}`),
  });

  beforeAll(async () => {
    m = createMemoryApp();
    m.app.use('/v1', createOpenAIRouter({ gengate: m.gengate, blobStore: m.blobs, logger: pino({ level: 'silent' }) }));
    const users = { owner: await m.user(0), admin: await m.user(0), member: await m.user(0) };
    // As the dashboard's session acts: in the organization, as the person (no API key).
    const session = (role: Role, organization: string): AuthContext => ({ userId: organization, memberId: users[role].userId, apiKeyId: null });
    org = (await m.gengate.organizations.create(session('owner', users.owner.userId), { name: 'Memory team' })).id;
    for (const role of ['admin', 'member'] as const) {
      const email = (await m.gengate.stores.users.findById(users[role].userId))?.email ?? '';
      await m.gengate.organizations.invite(session('owner', org), org, { email, role });
      const mail = [...m.invitationMails].reverse().find((x) => x.to === email);
      await m.gengate.organizations.acceptInvitation(session(role, users[role].userId), { token: mail?.token });
    }
    await m.gengate.admin.completePurchase((await m.gengate.billing.topup(session('owner', org), { amount: 10 })).transaction_id);
    for (const role of ['owner', 'admin', 'member'] as const) {
      const created = await m.gengate.keys.create(session(role, org), { name: `${role}'s key` });
      [key[role], keyId[role]] = [created.key, created.id];
      task[role] = (await call(role).post('/run/sandbox.echo-chat', { prompt: role }).expect(200)).body.task_id as string;
    }
  });

  it("a member lists only their own tasks and keys, and another member's task or key is a 404; an admin sees them all", async () => {
    const mine = (await call('member').get('/run/tasks').expect(200)).body.data.map((t: { task_id: string }) => t.task_id);
    expect(mine).toEqual([task.member]);
    const all = (await call('admin').get('/run/tasks').expect(200)).body.data.map((t: { task_id: string }) => t.task_id);
    expect(all.sort()).toEqual(Object.values(task).sort());
    expect((await call('member').get(`/run/tasks/${task.admin}`).expect(404)).body.error.type).toBe('task_not_found');
    expect((await call('member').post(`/run/tasks/${task.admin}/cancel`).expect(404)).body.error.type).toBe('task_not_found');
    await call('member').get(`/run/tasks/${task.member}`).expect(200);
    await call('admin').get(`/run/tasks/${task.member}`).expect(200);
    const listed = (await call('member').get('/api-keys').expect(200)).body.data.map((k: { id: string }) => k.id);
    expect(listed).toEqual([keyId.member]);
    expect((await call('member').put(`/api-keys/${keyId.admin}`, { name: 'x' }).expect(404)).body.error.type).toBe('api_key_not_found');
    expect((await call('member').delete(`/api-keys/${keyId.owner}`).expect(404)).body.error.type).toBe('api_key_not_found');
  });

  it("a member may rename their own key but not change its limits; billing is the owner's (transactions also the admin's)", async () => {
    await call('member').put(`/api-keys/${keyId.member}`, { name: 'renamed', ip_whitelist: [] }).expect(200);
    const limits = await call('member').put(`/api-keys/${keyId.member}`, { spend_limit: 1 }).expect(403);
    expect(limits.body.error.type).toBe('insufficient_role');
    expect((await call('member').get('/api-keys').expect(200)).body.data[0]).toMatchObject({ name: 'renamed', spend_limit: null });
    await call('member').get('/billing/balance').expect(200);
    expect((await call('member').get('/billing/transactions').expect(403)).body.error.type).toBe('insufficient_role');
    await call('admin').get('/billing/transactions').expect(200);
    const before = (await call('owner').get('/billing/transactions').expect(200)).body.total as number;
    expect((await call('admin').post('/billing/topup', { amount: 1 }).expect(403)).body.error.type).toBe('insufficient_role');
    expect((await call('admin').post('/billing/alerts', { threshold: 1 }).expect(403)).body.error.type).toBe('insufficient_role');
    expect((await call('owner').get('/billing/transactions').expect(200)).body.total).toBe(before);
    expect((await call('owner').get('/billing/alerts').expect(200)).body.data).toEqual([]);
    await call('owner').post('/billing/topup', { amount: 1 }).expect(200);
  });

  it("the OpenAI surface applies the same rule: a member's stored responses and video jobs are theirs, an admin sees everyone's", async () => {
    const v1 = (role: Role) => ({
      get: (path: string) => request(m.app).get(`/v1${path}`).set('Authorization', `Bearer ${key[role]}`),
      post: (path: string, body: object) => request(m.app).post(`/v1${path}`).set('Authorization', `Bearer ${key[role]}`).send(body),
    });
    const adminResponse = (await v1('admin').post('/responses', { model: 'sandbox.echo-chat', input: 'remember me' }).expect(200)).body.id as string;
    await v1('owner').get(`/responses/${adminResponse}`).expect(200);
    await v1('admin').get(`/responses/${adminResponse}`).expect(200);
    await v1('member').get(`/responses/${adminResponse}`).expect(404);
    await v1('member').post('/responses', { model: 'sandbox.echo-chat', input: 'go on', previous_response_id: adminResponse }).expect(404);

    const video = (await call('admin').post('/run/sandbox.motion-video', { prompt: 'a boat' }).expect(200)).body.task_id as string;
    await v1('owner').get(`/videos/${video}`).expect(200);
    await v1('member').get(`/videos/${video}`).expect(404);
    const listed = (who: Role) => v1(who).get('/videos').expect(200).then((r) => r.body.data.map((x: { id: string }) => x.id));
    expect(await listed('owner')).toContain(video);
    expect(await listed('member')).not.toContain(video);
  });
});
