import { SandboxAdapter } from '@gengate/adapters';
import express, { type Express } from 'express';
import pino from 'pino';
import request from './support/contract-request.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryGengate, type MemoryGengate } from '@gengate/testing';
import { createGengateRouter } from '../src/http/create-router.js';

/** /billing: balance, top-ups, transactions and balance alerts, with exact keys and value types. */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TX_KEYS = ['amount', 'created_at', 'credits', 'description', 'id', 'payment_method', 'status', 'task_id'];

interface TxBody {
  id: string;
  credits: number;
  amount: number;
  payment_method: string;
  status: string;
  created_at: string;
  task_id: string | null;
  description: string | null;
}

function expectTransaction(t: TxBody): void {
  expect(Object.keys(t).sort()).toEqual(TX_KEYS);
  expect(t.id).toMatch(UUID);
  expect(typeof t.credits).toBe('number');
  expect(typeof t.amount).toBe('number');
  expect(t.amount).toBeGreaterThanOrEqual(0);
  expect(['usage', 'grant', 'manual', 'stripe']).toContain(t.payment_method);
  expect(['pending', 'completed', 'failed']).toContain(t.status);
  expect(t.created_at).toMatch(ISO);
  expect(t.task_id === null || UUID.test(t.task_id)).toBe(true);
  expect(t.description === null || typeof t.description === 'string').toBe(true);
}

describe('HTTP contract: billing', () => {
  let m: MemoryGengate;
  let app: Express;
  let key: string;
  const get = (path: string, secret = key) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${secret}`);
  const send = (method: 'post' | 'delete', path: string, body?: unknown, secret = key) => {
    const req = request(app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${secret}`);
    return body === undefined ? req : req.send(body as object);
  };
  const transactions = async (q = ''): Promise<{ data: TxBody[]; total: number; page: number; per_page: number }> => {
    const res = await get(`/billing/transactions${q}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'page', 'per_page', 'total']);
    for (const t of res.body.data as TxBody[]) expectTransaction(t);
    return res.body as { data: TxBody[]; total: number; page: number; per_page: number };
  };

  beforeEach(async () => {
    m = createMemoryGengate({ adapters: [new SandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 50 }, statusPollIntervalMs: 10 })] });
    app = express().use('/api/v1', createGengateRouter({ gengate: m.gengate, blobStore: m.blobs, logger: pino({ level: 'silent' }) }));
    key = (await m.gengate.admin.createUser({ email: 'payer@example.com', credits: 1000 })).api_key;
  });

  it('GET /billing/balance answers credits, currency USD, held_credits, available_credits', async () => {
    const res = await get('/billing/balance');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['available_credits', 'credits', 'currency', 'held_credits']);
    expect(res.body).toEqual({ credits: 1000, currency: 'USD', held_credits: 0, available_credits: 1000 });
  });

  it('POST /billing/topup answers 200 with a pending purchase that the transactions list shows; completing it credits once', async () => {
    const res = await send('post', '/billing/topup', { amount: 12.5 });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['amount', 'checkout_url', 'credits', 'currency', 'payment_method', 'status', 'transaction_id']);
    expect(res.body).toEqual({
      transaction_id: expect.stringMatching(UUID),
      status: 'pending',
      amount: 12.5,
      credits: 1250,
      currency: 'USD',
      payment_method: 'manual',
      checkout_url: null,
    });
    const listed = await transactions();
    expect(listed.data[0]).toMatchObject({ id: res.body.transaction_id, status: 'pending', credits: 1250, amount: 12.5, payment_method: 'manual', task_id: null });
    expect((await get('/billing/balance')).body.credits).toBe(1000); // pending does not count

    await m.gengate.admin.completePurchase(res.body.transaction_id as string);
    expect((await get('/billing/balance')).body).toEqual({ credits: 2250, currency: 'USD', held_credits: 0, available_credits: 2250 });
    expect((await transactions()).data.find((t) => t.id === res.body.transaction_id)?.status).toBe('completed');
    await expect(m.gengate.admin.completePurchase(res.body.transaction_id as string)).rejects.toMatchObject({ type: 'conflict' });
    expect((await get('/billing/balance')).body.credits).toBe(2250);
  });

  it.each([[{ amount: 0 }], [{ amount: -5 }], [{ amount: '10' }], [{ amount: null }], [{ amount: 10.001 }], [{ amount: 0.5 }], [{ amount: 20_000 }], [{}], [{ amount: 10, coupon: 'x' }]])(
    'POST /billing/topup refuses %j with 400 and records nothing',
    async (body) => {
      const before = m.db.transactions.length;
      const res = await send('post', '/billing/topup', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, message: expect.any(String), error: { type: 'invalid_request', param: expect.any(String) } });
      expect(m.db.transactions.length).toBe(before);
    },
  );

  it('GET /billing/transactions: newest first, the usage row, paging and its limits', async () => {
    const first = await transactions();
    expect(first).toMatchObject({ total: 1, page: 1, per_page: 20 });
    expect(first.data[0]).toMatchObject({ payment_method: 'grant', status: 'completed', credits: 1000, amount: 0 });

    await send('post', '/billing/topup', { amount: 5 });
    const run = await send('post', '/run/sandbox.pixel-image', { prompt: 'fox' });
    await m.drainJobs();
    const all = await transactions();
    expect(all.total).toBe(3);
    expect(all.data.map((t) => t.payment_method)).toEqual(['usage', 'manual', 'grant']);
    const times = all.data.map((t) => Date.parse(t.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const usage = all.data[0];
    expect(usage).toMatchObject({ payment_method: 'usage', status: 'completed', credits: -2, task_id: run.body.task_id });
    expect(usage?.amount).toBeCloseTo(0.02, 9);

    const p2 = await transactions('?page=2&per_page=1');
    expect(p2).toMatchObject({ total: 3, page: 2, per_page: 1 });
    expect(p2.data.map((t) => t.payment_method)).toEqual(['manual']);
    expect((await transactions('?page=4&per_page=1')).data).toEqual([]);
    for (const q of ['?per_page=0', '?per_page=101', '?page=0', '?page=x']) {
      const res = await get(`/billing/transactions${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.type).toBe('invalid_request');
    }

    const other = await m.gengate.admin.createUser({ email: 'other@example.com', credits: 3 });
    const theirs = (await get('/billing/transactions', other.api_key)).body;
    expect(theirs).toMatchObject({ total: 1, data: [{ credits: 3, payment_method: 'grant' }] });
  });

  it('GET/POST/DELETE /billing/alerts: create 201, list {data}, delete {id, deleted}', async () => {
    expect((await get('/billing/alerts')).body).toEqual({ data: [] });
    const created = await send('post', '/billing/alerts', { threshold: 100 });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['armed', 'created_at', 'id', 'threshold']);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID), threshold: 100, armed: true, created_at: expect.stringMatching(ISO) });
    const above = (await send('post', '/billing/alerts', { threshold: 5000.5 })).body;
    expect(above).toMatchObject({ threshold: 5000.5, armed: false }); // the balance is already below it

    const list = await get('/billing/alerts');
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(['data']);
    expect(list.body.data).toEqual([created.body, above]);

    const del = await send('delete', `/billing/alerts/${created.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: created.body.id, deleted: true });
    const again = await send('delete', `/billing/alerts/${created.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 404, message: expect.any(String), error: { type: 'alert_not_found', param: 'id' } });
    expect((await get('/billing/alerts')).body.data).toEqual([above]);

    const other = await m.gengate.admin.createUser({ email: 'other@example.com', credits: 3 });
    expect((await send('delete', `/billing/alerts/${above.id}`, undefined, other.api_key)).status).toBe(404);
    expect((await get('/billing/alerts', other.api_key)).body).toEqual({ data: [] });
    expect((await get('/billing/alerts')).body.data).toHaveLength(1);
    expect((await send('delete', '/billing/alerts/not-a-uuid')).body.error).toEqual({ type: 'alert_not_found', param: 'id' });
  });

  it.each([[{ threshold: 0 }], [{ threshold: -1 }], [{ threshold: '5' }], [{ threshold: 1.2345678 }], [{ threshold: 0.0000001 }], [{ threshold: null }], [{}], [{ threshold: 5, email: 'x@y.z' }]])(
    'POST /billing/alerts refuses %j with 400 and creates nothing',
    async (body) => {
      const res = await send('post', '/billing/alerts', body);
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request');
      expect(m.db.alerts.size).toBe(0);
    },
  );

  it('POST /billing/alerts accepts a threshold to six decimals, the precision of a balance', async () => {
    for (const threshold of [0.000123, 1.234, 999.999999]) {
      const res = await send('post', '/billing/alerts', { threshold });
      expect(res.status, String(threshold)).toBe(201);
      expect(res.body.threshold).toBe(threshold);
    }
    expect((await get('/billing/alerts')).body.data.map((a: { threshold: number }) => a.threshold)).toEqual([0.000123, 1.234, 999.999999]);
  });

  it('a usage charge that takes the balance below a threshold queues one alert mail', async () => {
    const alert = (await send('post', '/billing/alerts', { threshold: 999 })).body;
    await send('post', '/run/sandbox.pixel-image', { prompt: 'fox' });
    await send('post', '/run/sandbox.pixel-image', { prompt: 'owl' });
    await m.drainJobs();
    expect((await get('/billing/balance')).body.credits).toBe(996);
    const mails = m.db.jobs.filter((j) => j.queue === 'alert-mail');
    expect(mails).toEqual([{ queue: 'alert-mail', payload: { alertId: alert.id, balanceMicro: expect.any(Number) }, startAfterMs: 0, availableAt: expect.any(Number) }]);
    expect((await get('/billing/alerts')).body.data[0]).toMatchObject({ id: alert.id, armed: false });
  });
});
