import { createTestDatabase, startFakeStripe, type FakeStripe, type TestDatabase } from '@gengate/testing/host';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

const SECRET_KEY = 'sk_test_gengatefake123';
const WEBHOOK_SECRET = 'whsec_gengatetest456';

/** Top-up through Stripe Checkout: the real SDK against a fake Stripe API, signed webhooks, exactly-once credit. */
describe('Stripe top-up end to end', () => {
  let db: TestDatabase;
  let fake: FakeStripe;
  let server: SpawnedServer;
  let key: string;
  const signer = new Stripe(SECRET_KEY);

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });
  const deliver = (payload: string, signature: string) =>
    fetch(`${server.url}/api/v1/billing/stripe/webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature }, body: payload });
  const balance = async () => ((await (await api('/billing/balance')).json()) as { credits: number }).credits;

  beforeAll(async () => {
    db = await createTestDatabase();
    fake = await startFakeStripe({ secretKey: SECRET_KEY });
    const env = {
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: tempDataDir(),
      PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: fake.url,
    };
    key = (JSON.parse(await runCli(['users', 'create', '--email', 'payer@example.com', '--credits', '10'], env)) as { api_key: string }).api_key;
    server = await spawnServer(env);
  });

  afterAll(async () => {
    await server?.stop();
    await fake?.close();
    await db?.drop();
  });

  it('pending purchase -> signed webhook -> completed once, even when delivered twice; a bad signature changes nothing', async () => {
    const res = await api('/billing/topup', { method: 'POST', body: JSON.stringify({ amount: 12.34 }) });
    expect(res.status).toBe(200);
    const topup = (await res.json()) as { transaction_id: string; status: string; checkout_url: string; credits: number; payment_method: string };
    expect(topup).toMatchObject({ status: 'pending', credits: 1234, payment_method: 'stripe' });
    expect(topup.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);

    // What the SDK sent to "Stripe".
    const sent = fake.requests.find((r) => r.path === '/v1/checkout/sessions');
    expect(sent?.form).toMatchObject({
      mode: 'payment',
      client_reference_id: topup.transaction_id,
      'metadata[transaction_id]': topup.transaction_id,
      'line_items[0][price_data][unit_amount]': '1234',
      'line_items[0][price_data][currency]': 'usd',
    });
    expect(sent?.idempotencyKey).toBe(`gengate-topup-${topup.transaction_id}`);
    expect(await balance()).toBe(10);

    const sessionId = [...fake.sessions.keys()][0] ?? '';
    const payload = fake.completedEvent(sessionId);

    const forged = await deliver(payload, signer.webhooks.generateTestHeaderString({ payload, secret: 'whsec_wrongsecret' }));
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as { error: { type: string } }).error.type).toBe('invalid_request');
    expect((await deliver(payload, 'garbage')).status).toBe(400);
    expect(await balance()).toBe(10);

    const signature = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    expect((await deliver(payload, signature)).status).toBe(200);
    expect(await balance()).toBe(1244);
    expect((await deliver(payload, signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }))).status).toBe(200);
    expect(await balance()).toBe(1244);

    const tx = (await (await api('/billing/transactions')).json()) as { data: { id: string; status: string; credits: number; amount: number; payment_method: string }[] };
    const purchase = tx.data.find((t) => t.id === topup.transaction_id);
    expect(purchase).toMatchObject({ status: 'completed', credits: 1234, amount: 12.34, payment_method: 'stripe' });
    expect(tx.data.filter((t) => t.payment_method === 'stripe')).toHaveLength(1);
  });

  /** Starts a top-up and returns its transaction id and the fake's session (as the SDK created it). */
  async function startTopup(amount: number): Promise<{ transactionId: string; sessionId: string }> {
    const res = await api('/billing/topup', { method: 'POST', body: JSON.stringify({ amount }) });
    expect(res.status).toBe(200);
    const { transaction_id: transactionId } = (await res.json()) as { transaction_id: string };
    const session = [...fake.sessions.values()].find((x) => x.client_reference_id === transactionId);
    if (!session) throw new Error('no session');
    return { transactionId, sessionId: session.id };
  }

  const status = async (transactionId: string) =>
    ((await (await api('/billing/transactions?per_page=100')).json()) as { data: { id: string; status: string }[] }).data.find((t) => t.id === transactionId)?.status;

  async function deliverAltered(sessionId: string, alter: (session: Record<string, unknown>) => void): Promise<Response> {
    const event = JSON.parse(fake.completedEvent(sessionId)) as { data: { object: Record<string, unknown> } };
    alter(event.data.object);
    const payload = JSON.stringify(event);
    return deliver(payload, signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }));
  }

  it.each([
    ['without amount_total', (s: Record<string, unknown>) => (s['amount_total'] = null)],
    ['without currency', (s: Record<string, unknown>) => (s['currency'] = null)],
    ['in another currency', (s: Record<string, unknown>) => (s['currency'] = 'eur')],
    ['with another amount', (s: Record<string, unknown>) => (s['amount_total'] = 1)],
  ])('refuses a completed session %s and changes nothing', async (_label, alter) => {
    const before = await balance();
    const { transactionId, sessionId } = await startTopup(3);
    const res = await deliverAltered(sessionId, alter);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('invalid_request');
    expect(await balance()).toBe(before);
    expect(await status(transactionId)).toBe('pending');
    // Logs reach standard output in batches (at most 100 ms late): wait for the line.
    await waitFor(async () => (/"level":40[^\n]*stripe checkout refused/.test(server.output()) ? true : null), { timeoutMs: 30_000, what: 'the refusal logged at warn' });
  });

  it('creates the Checkout Session with an explicit expiry', async () => {
    // The last session the tests above created (a new top-up would pass the cap of 5 pending).
    const sent = fake.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1);
    const sessionId = [...fake.sessions.values()].find((x) => x.client_reference_id === sent?.form['client_reference_id'])?.id ?? '';
    const expiresAt = Number(sent?.form['expires_at']);
    const inHours = (expiresAt * 1000 - Date.now()) / 3_600_000;
    expect(inHours).toBeGreaterThan(23);
    expect(inHours).toBeLessThanOrEqual(24);
    expect(fake.sessions.get(sessionId)?.expires_at).toBe(expiresAt);
  });

  it('a top-up whose Checkout Session cannot be created is failed, not left pending', async () => {
    fake.failNextCheckouts(1);
    const res = await api('/billing/topup', { method: 'POST', body: JSON.stringify({ amount: 4 }) });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('upstream_error');
    const tx = ((await (await api('/billing/transactions?per_page=100')).json()) as { data: { amount: number; status: string; payment_method: string }[] }).data;
    const attempt = tx.find((t) => t.amount === 4 && t.payment_method === 'stripe');
    expect(attempt?.status).toBe('failed');
  });
});
