import { SandboxAdapter } from '@gengate/adapters';
import express, { type Express } from 'express';
import pino from 'pino';
import request from './support/contract-request.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryGengate, type MemoryGengate } from '@gengate/testing';
import { createGengateRouter } from '../src/http/create-router.js';

/** GET/POST/PUT/DELETE /api-keys: exact shapes, masking, every update field, refusals and revocation. */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = /^gg_live_[A-Za-z0-9_-]{43}$/;
const LISTED_KEYS = [
  'allowed_modalities',
  'allowed_models',
  'allowed_providers',
  'budget_period',
  'concurrent_tasks',
  'created_at',
  'id',
  'ip_whitelist',
  'key',
  'last_used_at',
  'max_concurrent_tasks',
  'member_id',
  'name',
  'rate_limit_per_day',
  'rate_limit_per_hour',
  'rate_limit_per_minute',
  'remaining',
  'resets_at',
  'soft_threshold_percent',
  'spend_limit',
  'spent',
];

interface ListedKey {
  id: string;
  name: string;
  key: string;
  rate_limit_per_minute: number | null;
  rate_limit_per_hour: number | null;
  rate_limit_per_day: number | null;
  ip_whitelist: string[];
  created_at: string;
  last_used_at: string | null;
}

function expectListed(k: ListedKey): void {
  expect(Object.keys(k).sort()).toEqual(LISTED_KEYS);
  expect(k.id).toMatch(UUID);
  expect(typeof k.name).toBe('string');
  expect(k.key).toMatch(/^gg_live_\.\.\.[A-Za-z0-9_-]{4}$/);
  for (const f of ['rate_limit_per_minute', 'rate_limit_per_hour', 'rate_limit_per_day'] as const) {
    expect(k[f] === null || (Number.isInteger(k[f]) && (k[f] ?? 0) > 0), f).toBe(true);
  }
  expect(Array.isArray(k.ip_whitelist)).toBe(true);
  expect(k.created_at).toMatch(ISO);
  expect(k.last_used_at === null || ISO.test(k.last_used_at)).toBe(true);
}

describe('HTTP contract: API keys', () => {
  let m: MemoryGengate;
  let app: Express;
  let key: string;
  let owner: string;
  const as = (secret: string) => ({ Authorization: `Bearer ${secret}` });
  const get = (path: string, secret = key) => request(app).get(`/api/v1${path}`).set(as(secret));
  const send = (method: 'post' | 'put' | 'delete', path: string, body?: unknown, secret = key) => {
    const req = request(app)[method](`/api/v1${path}`).set(as(secret));
    return body === undefined ? req : req.send(body as object);
  };
  const list = async (secret = key): Promise<ListedKey[]> => {
    const res = await get('/api-keys', secret);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    return res.body.data as ListedKey[];
  };

  beforeEach(async () => {
    m = createMemoryGengate({ adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 50 }, statusPollIntervalMs: 10 })] });
    app = express().use('/api/v1', createGengateRouter({ gengate: m.gengate, blobStore: m.blobs, logger: pino({ level: 'silent' }) }));
    const created = await m.gengate.admin.createUser({ email: 'keys@example.com', credits: 1000 });
    key = created.api_key;
    owner = created.user_id;
  });

  it('POST creates: 201 with exactly id, name, key (the full secret), created_at', async () => {
    const res = await send('post', '/api-keys', {
      name: '  backend  ',
      rate_limit_per_minute: 60,
      rate_limit_per_hour: 1000,
      rate_limit_per_day: 10_000,
      ip_whitelist: ['10.0.0.0/8', '203.0.113.7', '2001:db8::/32'],
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'id', 'key', 'name']);
    expect(res.body.id).toMatch(UUID);
    expect(res.body.name).toBe('backend');
    expect(res.body.key).toMatch(SECRET);
    expect(res.body.created_at).toMatch(ISO);
    // The new secret works at once.
    expect((await get('/billing/balance', res.body.key as string).set('X-Forwarded-For', '10.1.2.3')).status).toBe(403); // the loopback peer is not whitelisted; X-Forwarded-For from an untrusted peer is ignored
    const minimal = await send('post', '/api-keys', { name: 'minimal' });
    expect(minimal.status).toBe(201);
    expect((await get('/billing/balance', minimal.body.key as string)).status).toBe(200);
  });

  it('GET lists {data} newest first with the secret masked and no full secret anywhere', async () => {
    const a = (await send('post', '/api-keys', { name: 'a', rate_limit_per_minute: 5, ip_whitelist: ['192.168.0.0/16'] })).body;
    const b = (await send('post', '/api-keys', { name: 'b' })).body;
    const res = await get('/api-keys');
    const body = JSON.stringify(res.body);
    for (const secret of [key, a.key as string, b.key as string]) {
      expect(body).not.toContain(secret);
      expect(body).not.toContain(secret.slice(8, 30));
    }
    const data = res.body.data as ListedKey[];
    expect(data.map((k) => k.name)).toEqual(['b', 'a', 'default']);
    for (const k of data) expectListed(k);
    expect(data[1]).toEqual({
      id: a.id,
      name: 'a',
      key: `gg_live_...${String(a.key).slice(-4)}`,
      // A personal organization's key: its member is the user.
      member_id: owner,
      rate_limit_per_minute: 5,
      rate_limit_per_hour: null,
      rate_limit_per_day: null,
      ip_whitelist: ['192.168.0.0/16'],
      // Issue 22's spend controls: none set, nothing spent.
      spend_limit: null,
      budget_period: 'none',
      soft_threshold_percent: null,
      allowed_models: null,
      allowed_providers: null,
      allowed_modalities: null,
      max_concurrent_tasks: null,
      spent: 0,
      remaining: null,
      resets_at: null,
      concurrent_tasks: 0,
      created_at: a.created_at,
      last_used_at: null,
    });
    expect(data[2]?.last_used_at).toMatch(ISO); // the key this test authenticates with
  });

  it('PUT updates each field, null removes a limit, [] clears the whitelist; answers the listed key', async () => {
    const created = (await send('post', '/api-keys', { name: 'svc', rate_limit_per_day: 500 })).body;
    const id = created.id as string;
    const put = async (body: object): Promise<ListedKey> => {
      const res = await send('put', `/api-keys/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expectListed(res.body as ListedKey);
      return res.body as ListedKey;
    };
    expect((await put({ name: 'renamed' })).name).toBe('renamed');
    expect(await put({ rate_limit_per_minute: 10 })).toMatchObject({ rate_limit_per_minute: 10, rate_limit_per_hour: null, rate_limit_per_day: 500 });
    expect(await put({ rate_limit_per_hour: 100 })).toMatchObject({ rate_limit_per_minute: 10, rate_limit_per_hour: 100, rate_limit_per_day: 500 });
    expect(await put({ rate_limit_per_day: 2000 })).toMatchObject({ rate_limit_per_day: 2000 });
    expect(await put({ rate_limit_per_minute: null, rate_limit_per_day: null })).toMatchObject({
      rate_limit_per_minute: null,
      rate_limit_per_hour: 100,
      rate_limit_per_day: null,
    });
    expect((await put({ ip_whitelist: ['127.0.0.1', '::1/128'] })).ip_whitelist).toEqual(['127.0.0.1', '::1/128']);
    const cleared = await put({ ip_whitelist: [] });
    expect(cleared).toMatchObject({ id, name: 'renamed', key: `gg_live_...${String(created.key).slice(-4)}`, ip_whitelist: [], created_at: created.created_at });
    expect(JSON.stringify(cleared)).not.toContain(created.key);
    expect((await list()).find((k) => k.id === id)).toMatchObject({ name: 'renamed', rate_limit_per_hour: 100, rate_limit_per_day: null, ip_whitelist: [] });
  });

  it.each([
    ['unknown field', { colour: 'red' }, 'colour'],
    ['empty body', {}, null],
    ['name of the wrong type', { name: 5 }, 'name'],
    ['blank name', { name: '   ' }, 'name'],
    ['limit of the wrong type', { rate_limit_per_minute: 'ten' }, 'rate_limit_per_minute'],
    ['zero limit', { rate_limit_per_hour: 0 }, 'rate_limit_per_hour'],
    ['fractional limit', { rate_limit_per_day: 1.5 }, 'rate_limit_per_day'],
    ['whitelist not an array', { ip_whitelist: '10.0.0.0/8' }, 'ip_whitelist'],
    ['whitelist null', { ip_whitelist: null }, 'ip_whitelist'],
    ['CIDR prefix too long', { ip_whitelist: ['10.0.0.0/33'] }, 'ip_whitelist.0'],
    ['IPv6 prefix too long', { ip_whitelist: ['2001:db8::/129'] }, 'ip_whitelist.0'],
    ['not an address', { ip_whitelist: ['127.0.0.1', 'localhost'] }, 'ip_whitelist.1'],
    ['double slash', { ip_whitelist: ['10.0.0.0/8/1'] }, 'ip_whitelist.0'],
    ['octet out of range', { ip_whitelist: ['300.1.1.1'] }, 'ip_whitelist.0'],
  ])('PUT refuses %s with 400 invalid_request and changes nothing', async (_label, body, param) => {
    const created = (await send('post', '/api-keys', { name: 'keep', rate_limit_per_minute: 7 })).body;
    const before = (await list()).find((k) => k.id === created.id);
    const res = await send('put', `/api-keys/${created.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request');
    if (param !== null) expect(res.body.error.param).toBe(param);
    expect((await list()).find((k) => k.id === created.id)).toEqual(before);
  });

  it.each([
    ['no name', {}],
    ['unknown field', { name: 'x', scopes: ['all'] }],
    ['negative limit', { name: 'x', rate_limit_per_minute: -1 }],
    ['malformed CIDR', { name: 'x', ip_whitelist: ['1.2.3.4/40'] }],
    ['name too long', { name: 'n'.repeat(101) }],
  ])('POST refuses %s with 400 and creates no key', async (_label, body) => {
    const before = m.db.keys.size;
    const res = await send('post', '/api-keys', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.any(String), error: { type: 'invalid_request', param: expect.any(String) } });
    expect(m.db.keys.size).toBe(before);
  });

  it("another user's key is a 404 for PUT and DELETE and stays untouched", async () => {
    const other = await m.gengate.admin.createUser({ email: 'other@example.com', credits: 10 });
    const theirs = (await send('post', '/api-keys', { name: 'theirs' }, other.api_key)).body;
    const put = await send('put', `/api-keys/${theirs.id}`, { name: 'mine now' });
    expect(put.status).toBe(404);
    expect(put.body).toEqual({ code: 404, message: expect.any(String), error: { type: 'api_key_not_found', param: 'id' } });
    const del = await send('delete', `/api-keys/${theirs.id}`);
    expect(del.status).toBe(404);
    expect(del.body.error.type).toBe('api_key_not_found');
    expect((await list()).map((k) => k.id)).not.toContain(theirs.id);
    expect((await list(other.api_key)).find((k) => k.id === theirs.id)?.name).toBe('theirs');
    expect((await get('/billing/balance', theirs.key as string)).status).toBe(200);
    expect((await send('put', '/api-keys/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
    for (const id of ['not-a-uuid', "1' or '1'='1"]) {
      expect((await send('put', `/api-keys/${encodeURIComponent(id)}`, { name: 'x' })).body.error.type, id).toBe('api_key_not_found');
      expect((await send('delete', `/api-keys/${encodeURIComponent(id)}`)).body.error.type, id).toBe('api_key_not_found');
    }
  });

  it('DELETE revokes at once: {id, deleted, failed_task_ids}; the key then gets 401; its waiting tasks fail', async () => {
    const created = (await send('post', '/api-keys', { name: 'doomed' })).body;
    const secret = created.key as string;
    const run = await request(app).post('/api/v1/run/sandbox.pixel-image').set(as(secret)).send({ prompt: 'fox' });
    expect(run.status).toBe(200);
    expect((await get('/billing/balance')).body.held_credits).toBeGreaterThan(0);

    const del = await send('delete', `/api-keys/${created.id}`);
    expect(del.status).toBe(200);
    expect(Object.keys(del.body).sort()).toEqual(['deleted', 'failed_task_ids', 'id']);
    expect(del.body).toEqual({ id: created.id, deleted: true, failed_task_ids: [run.body.task_id] });

    for (const res of [await get('/models', secret), await request(app).post('/api/v1/run/sandbox.echo-chat').set(as(secret)).send({ prompt: 'x' })]) {
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('authentication_failed');
    }
    const t = (await get(`/run/tasks/${run.body.task_id}`)).body;
    expect(t.status).toBe('fail');
    expect(t.error_message).toMatch(/revoked/);
    expect((await get('/billing/balance')).body).toMatchObject({ credits: 1000, held_credits: 0 });
    await m.drainJobs();
    expect((await get(`/run/tasks/${run.body.task_id}`)).body.status).toBe('fail');
    expect((await list()).map((k) => k.id)).not.toContain(created.id);
    expect((await send('delete', `/api-keys/${created.id}`)).status).toBe(404);
  });

  it('enforces the whitelist (403 ip_not_allowed) and the per-minute limit (429 with Retry-After)', async () => {
    const created = (await send('post', '/api-keys', { name: 'guarded', ip_whitelist: ['10.0.0.0/8'] })).body;
    const secret = created.key as string;
    const refused = await get('/models', secret);
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('ip_not_allowed');
    await send('put', `/api-keys/${created.id}`, { ip_whitelist: ['127.0.0.0/8', '::1'], rate_limit_per_minute: 2 });
    const first = await get('/models', secret);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-limit']).toBe('2');
    expect(first.headers['ratelimit-remaining']).toBe('1');
    expect((await get('/models', secret)).status).toBe(200);
    const limited = await get('/models', secret);
    expect(limited.status).toBe(429);
    expect(limited.body.error.type).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await get('/models')).status).toBe(200); // other keys are counted apart
  });
});
