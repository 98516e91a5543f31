import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryApp, type MemoryApp } from './support/memory-app.js';

const MODEL_KEYS = ['description', 'id', 'is_active', 'is_popular', 'modality', 'name', 'provider', 'tags'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('HTTP: models, pricing, keys, billing', () => {
  let m: MemoryApp;
  let key: string;
  const get = (path: string) => request(m.app).get(`/api/v1${path}`).set('Authorization', `Bearer ${key}`);
  const send = (method: 'post' | 'put' | 'delete', path: string, body?: object) =>
    request(m.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${key}`).send(body);

  beforeEach(async () => {
    m = createMemoryApp();
    key = (await m.user()).key;
  });

  describe('models', () => {
    it('lists with the paging envelope and defaults page 1, per_page 20', async () => {
      const res = await get('/models');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'page', 'per_page', 'total', 'total_pages']);
      expect(res.body).toMatchObject({ page: 1, per_page: 20, total: 4, total_pages: 1 });
      for (const model of res.body.data) {
        expect(Object.keys(model).sort()).toEqual(MODEL_KEYS);
        expect(typeof model.is_popular).toBe('boolean');
        expect(Array.isArray(model.tags)).toBe(true);
      }
    });

    it('pages with page and per_page', async () => {
      const p2 = await get('/models?per_page=3&page=2');
      expect(p2.body).toMatchObject({ page: 2, per_page: 3, total: 4, total_pages: 2 });
      expect(p2.body.data).toHaveLength(1);
      expect((await get('/models?per_page=0')).status).toBe(400);
      expect((await get('/models?per_page=101')).status).toBe(400);
      expect((await get('/models?page=0')).status).toBe(400);
    });

    it('filters: task repeated is OR, provider, search over name and description', async () => {
      const ids = async (q: string) => ((await get(`/models${q}`)).body.data as { id: string }[]).map((x) => x.id);
      expect(await ids('?task=video')).toEqual(['sandbox.motion-video']);
      expect(await ids('?task=video&task=chat')).toEqual(['sandbox.echo-chat', 'sandbox.motion-video']);
      expect(await ids('?task=image')).toEqual(['sandbox.always-fail', 'sandbox.pixel-image']);
      expect(await ids('?provider=sandbox')).toHaveLength(4);
      expect(await ids('?provider=nobody')).toEqual([]);
      expect(await ids('?search=gif')).toEqual(['sandbox.motion-video']);
      expect(await ids('?search=ECHO')).toEqual(['sandbox.echo-chat']);
      expect(await ids('?task=image&search=png')).toEqual(['sandbox.pixel-image']);
      expect((await get('/models?task=audio')).status).toBe(400);
    });

    it('shows one model, the popular ones and pricing records', async () => {
      const one = await get('/models/sandbox.pixel-image');
      expect(Object.keys(one.body).sort()).toEqual(MODEL_KEYS);
      expect(one.body).toMatchObject({ id: 'sandbox.pixel-image', provider: 'sandbox', modality: 'image', is_active: true });
      expect((await get('/models/sandbox.nope')).body.error.type).toBe('model_not_found');
      const popular = await get('/models/popular');
      expect(Object.keys(popular.body)).toEqual(['data']);
      expect(popular.body.data.every((x: { is_popular: boolean }) => x.is_popular)).toBe(true);
      const pricing = await get('/models/sandbox.echo-chat/pricing');
      expect(Object.keys(pricing.body).sort()).toEqual(['credits_per_usd', 'currency', 'modality', 'model_id', 'prices', 'provider']);
      expect(pricing.body.prices).toEqual([
        { unit: '1M_input_tokens', resolution: null, credits: 10, usd: 0.1 },
        { unit: '1M_output_tokens', resolution: null, credits: 30, usd: 0.3 },
      ]);
      const all = await get('/pricing');
      expect(Object.keys(all.body)).toEqual(['data']);
      expect(all.body.data.map((p: { model_id: string }) => p.model_id)).toEqual([
        'sandbox.always-fail',
        'sandbox.echo-chat',
        'sandbox.motion-video',
        'sandbox.pixel-image',
      ]);
    });
  });

  describe('api keys', () => {
    it('creates (secret once), lists masked, updates each field, deletes', async () => {
      const created = await send('post', '/api-keys', { name: 'backend', rate_limit_per_minute: 60, ip_whitelist: ['10.0.0.0/8'] });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body).sort()).toEqual(['created_at', 'id', 'key', 'name']);
      expect(created.body.key).toMatch(/^gg_live_[A-Za-z0-9_-]{43}$/);
      expect(created.body.created_at).toMatch(ISO);
      const list = await get('/api-keys');
      expect(JSON.stringify(list.body)).not.toContain(created.body.key);
      const listed = list.body.data.find((k: { id: string }) => k.id === created.body.id);
      expect(Object.keys(listed).sort()).toEqual([
        'created_at', 'id', 'ip_whitelist', 'key', 'last_used_at', 'name', 'rate_limit_per_day', 'rate_limit_per_hour', 'rate_limit_per_minute',
      ]);
      expect(listed).toMatchObject({ name: 'backend', key: `gg_live_...${created.body.key.slice(-4)}`, rate_limit_per_minute: 60, rate_limit_per_hour: null, ip_whitelist: ['10.0.0.0/8'] });

      const id = created.body.id as string;
      expect((await send('put', `/api-keys/${id}`, { name: 'renamed' })).body.name).toBe('renamed');
      expect((await send('put', `/api-keys/${id}`, { rate_limit_per_hour: 100, rate_limit_per_day: 1000 })).body).toMatchObject({ rate_limit_per_hour: 100, rate_limit_per_day: 1000 });
      expect((await send('put', `/api-keys/${id}`, { rate_limit_per_minute: null })).body.rate_limit_per_minute).toBeNull();
      expect((await send('put', `/api-keys/${id}`, { ip_whitelist: ['2001:db8::/32'] })).body.ip_whitelist).toEqual(['2001:db8::/32']);
      for (const bad of [{ colour: 'red' }, { name: 5 }, { rate_limit_per_minute: 'ten' }, { rate_limit_per_minute: 0 }, { ip_whitelist: ['nope'] }, {}]) {
        const res = await send('put', `/api-keys/${id}`, bad);
        expect(res.status, JSON.stringify(bad)).toBe(400);
        expect(res.body.error.type).toBe('invalid_request');
      }
      const del = await send('delete', `/api-keys/${id}`);
      expect(del.body).toEqual({ id, deleted: true, failed_task_ids: [] });
      const revoked = await request(m.app).get('/api/v1/models').set('Authorization', `Bearer ${created.body.key}`);
      expect(revoked.status).toBe(401);
      expect((await send('delete', `/api-keys/${id}`)).status).toBe(404);
    });

    it("refuses bad creates and hides other users' keys", async () => {
      expect((await send('post', '/api-keys', {})).status).toBe(400);
      expect((await send('post', '/api-keys', { name: 'x', ip_whitelist: ['1.2.3.4/40'] })).status).toBe(400);
      const other = await m.user();
      const theirs = await request(m.app).post('/api/v1/api-keys').set('Authorization', `Bearer ${other.key}`).send({ name: 'theirs' });
      expect((await send('put', `/api-keys/${theirs.body.id}`, { name: 'mine now' })).body.error.type).toBe('api_key_not_found');
      expect((await send('delete', `/api-keys/${theirs.body.id}`)).status).toBe(404);
      expect(JSON.stringify((await get('/api-keys')).body)).not.toContain(theirs.body.id);
    });
  });

  describe('billing', () => {
    it('shows the balance and newest-first transactions with paging', async () => {
      const bal = await get('/billing/balance');
      expect(bal.body).toEqual({ credits: 1000, currency: 'USD', held_credits: 0, available_credits: 1000 });
      await send('post', '/billing/topup', { amount: 12.5 });
      const tx = await get('/billing/transactions');
      expect(Object.keys(tx.body).sort()).toEqual(['data', 'page', 'per_page', 'total']);
      expect(tx.body).toMatchObject({ page: 1, per_page: 20, total: 2 });
      expect(tx.body.data[0]).toMatchObject({ payment_method: 'manual', status: 'pending', credits: 1250, amount: 12.5 });
      expect(tx.body.data[1]).toMatchObject({ payment_method: 'grant', status: 'completed', credits: 1000 });
      for (const t of tx.body.data) {
        expect(Object.keys(t).sort()).toEqual(['amount', 'created_at', 'credits', 'description', 'id', 'payment_method', 'status', 'task_id']);
      }
      const p2 = await get('/billing/transactions?page=2&per_page=1');
      expect(p2.body).toMatchObject({ page: 2, per_page: 1, total: 2 });
      expect(p2.body.data[0].payment_method).toBe('grant');
    });

    it('starts a top-up and refuses bad amounts without a trace', async () => {
      const ok = await send('post', '/billing/topup', { amount: 10 });
      expect(ok.body).toMatchObject({ status: 'pending', amount: 10, credits: 1000, currency: 'USD', payment_method: 'manual', checkout_url: null });
      const count = m.db.transactions.length;
      for (const amount of [0, -5, '10', null, 10.001, 0.5, 20_000]) {
        const res = await send('post', '/billing/topup', { amount });
        expect(res.status, String(amount)).toBe(400);
      }
      expect((await send('post', '/billing/topup', {})).status).toBe(400);
      expect(m.db.transactions.length).toBe(count);
      expect((await get('/billing/balance')).body.credits).toBe(1000);
    });

    it('creates, lists and deletes balance alerts', async () => {
      const created = await send('post', '/billing/alerts', { threshold: 100 });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body).sort()).toEqual(['armed', 'created_at', 'id', 'threshold']);
      expect(created.body).toMatchObject({ threshold: 100, armed: true });
      expect((await get('/billing/alerts')).body.data).toHaveLength(1);
      for (const body of [{ threshold: 0 }, { threshold: -1 }, { threshold: 'x' }, { threshold: 1.234 }, { threshold: null }, {}, { threshold: 5, extra: 1 }]) {
        const res = await send('post', '/billing/alerts', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.type).toBe('invalid_request');
      }
      expect((await get('/billing/alerts')).body.data).toHaveLength(1);
      expect((await send('delete', `/billing/alerts/${created.body.id}`)).body).toEqual({ id: created.body.id, deleted: true });
      expect((await send('delete', `/billing/alerts/${created.body.id}`)).body.error.type).toBe('alert_not_found');
      expect((await get('/billing/alerts')).body.data).toEqual([]);
    });
  });
});
