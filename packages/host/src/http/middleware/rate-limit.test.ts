import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { ApiKeyLimits, ApiKeyRecord, KeyRateLimiter } from '@gengate/core';
import { createMemoryKeyRateLimiter } from '../../limits/create-rate-limiters.js';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestAuth } from './authenticate.js';
import { errorHandler } from './error-handler.js';
import { rateLimit } from './rate-limit.js';

const NONE: ApiKeyLimits = { perMinute: null, perHour: null, perDay: null };

/** The rate limit middleware, behind a stand-in for authentication that takes the caller from the test. */
describe('rateLimit', () => {
  const asked: string[] = [];
  const inner = createMemoryKeyRateLimiter();
  const limiter: KeyRateLimiter = { consume: (id, limits) => (asked.push(id), inner.consume(id, limits)) };
  let caller: RequestAuth = { userId: 'u', memberId: 'u', apiKeyId: null };
  let server: Server;
  let url = '';

  const keyed = (id: string, limits: ApiKeyLimits): RequestAuth => ({
    userId: 'u',
    memberId: 'u',
    apiKeyId: id,
    key: { id, userId: 'u', name: id, secretHash: '0'.repeat(64), mask: 'gg_live_...0000', limits, ipWhitelist: [], createdAt: new Date(0), lastUsedAt: null, revokedAt: null } satisfies ApiKeyRecord,
  });

  beforeAll(async () => {
    const app = express();
    app.use((_req, res, next) => {
      res.locals['auth'] = caller;
      next();
    });
    app.use(rateLimit(limiter));
    app.get('/x', (_req, res) => void res.json({ ok: true }));
    app.use(errorHandler);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a key without limits passes without asking the limiter, and gets no RateLimit headers', async () => {
    caller = keyed('k-free', NONE);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
    expect(asked).not.toContain('k-free');
  });

  it('a request authenticated without a key passes without asking the limiter', async () => {
    caller = { userId: 'u', memberId: 'u', apiKeyId: null };
    const before = asked.length;
    expect((await fetch(url)).status).toBe(200);
    expect(asked.length).toBe(before);
  });

  it('a key with a limit is counted: its headers, then a 429 with Retry-After past the limit', async () => {
    caller = keyed('k-two', { perMinute: 2, perHour: null, perDay: null });
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect([first.headers.get('ratelimit-limit'), first.headers.get('ratelimit-remaining')]).toEqual(['2', '1']);
    expect((await fetch(url)).status).toBe(200);
    const refused = await fetch(url);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('rate_limited');
    expect(asked.filter((id) => id === 'k-two')).toHaveLength(3);
  });
});
