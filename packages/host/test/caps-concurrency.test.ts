import { MAX_ALERTS_PER_USER, MAX_KEYS_PER_USER, MAX_PENDING_TOPUPS_PER_USER } from '@gengate/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgHttpApp, type PgHttpApp } from './support/pg-http-app.js';

/** Per-user caps hold under concurrent requests: the database enforces them, not a count-then-insert. */
describe('per-user caps under concurrency (HTTP, PostgreSQL)', () => {
  let app: PgHttpApp;

  beforeAll(async () => {
    app = await openPgHttpApp();
  });

  afterAll(async () => {
    await app?.close();
  });

  const post = (key: string, path: string, body: object) =>
    fetch(`${app.url}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  /** Counts by status, every success (200 or 201) counted as 200. */
  async function statuses(responses: Promise<Response>[]): Promise<Record<number, number>> {
    const counts: Record<number, number> = {};
    for (const res of await Promise.all(responses)) {
      const status = res.ok ? 200 : res.status;
      counts[status] = (counts[status] ?? 0) + 1;
      if (!res.ok) expect(await res.json()).toMatchObject({ error: { type: 'limit_exceeded' } });
      else await res.arrayBuffer();
    }
    return counts;
  }

  it(`200 parallel key creations leave exactly ${MAX_KEYS_PER_USER} active keys`, async () => {
    const { key } = await app.user();
    const counts = await statuses(Array.from({ length: 200 }, (_, i) => post(key, '/api-keys', { name: `k${i}` })));
    // The user's first key already counts.
    expect(counts).toEqual({ 200: MAX_KEYS_PER_USER - 1, 422: 200 - (MAX_KEYS_PER_USER - 1) });
    const { rows } = await app.pool.query<{ n: number }>(
      'select count(*)::int as n from gengate.api_keys where revoked_at is null and user_id = (select user_id from gengate.api_keys where name = $1 limit 1)',
      ['k0'],
    );
    expect(rows[0]?.n).toBe(MAX_KEYS_PER_USER);
  });

  it(`100 parallel alert creations leave exactly ${MAX_ALERTS_PER_USER} alerts`, async () => {
    const { key, userId } = await app.user();
    const counts = await statuses(Array.from({ length: 100 }, (_, i) => post(key, '/billing/alerts', { threshold: i + 1 })));
    expect(counts).toEqual({ 200: MAX_ALERTS_PER_USER, 422: 100 - MAX_ALERTS_PER_USER });
    const { rows } = await app.pool.query<{ n: number }>('select count(*)::int as n from gengate.balance_alerts where user_id = $1', [userId]);
    expect(rows[0]?.n).toBe(MAX_ALERTS_PER_USER);
  });

  it(`50 parallel top-ups leave exactly ${MAX_PENDING_TOPUPS_PER_USER} pending purchases`, async () => {
    const { key, userId } = await app.user();
    const counts = await statuses(Array.from({ length: 50 }, () => post(key, '/billing/topup', { amount: 5 })));
    expect(counts).toEqual({ 200: MAX_PENDING_TOPUPS_PER_USER, 422: 50 - MAX_PENDING_TOPUPS_PER_USER });
    const { rows } = await app.pool.query<{ n: number }>("select count(*)::int as n from gengate.transactions where user_id = $1 and status = 'pending'", [userId]);
    expect(rows[0]?.n).toBe(MAX_PENDING_TOPUPS_PER_USER);
  });
});
