import { FalAdapter, ReplicateAdapter } from '@gengate/adapters';
import type { ProviderAdapter } from '@gengate/core';
import { createMemoryGengate, FakeFal, FakeReplicate } from '@gengate/testing';
import express from 'express';
import { pino } from 'pino';
import request from './support/contract-request.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';

const REPLICATE_SECRET_PATH = '/v1/webhooks/default/secret';
const JWKS_PATH = '/.well-known/jwks.json';
const UNKNOWN_TASK = '00000000-0000-4000-8000-000000000000';

/** A clock the test moves: the secret and key caches are "at most once per interval" on it. */
function clock() {
  let t = Date.now();
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

function appWith(adapters: readonly ProviderAdapter[]) {
  const memory = createMemoryGengate({ adapters });
  return express().use('/api/v1', createGengateRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger: pino({ level: 'silent' }) }));
}

const post = (app: express.Express, provider: string, body: string, headers: Record<string, string>) =>
  request(app).post(`/api/v1/providers/${provider}/webhook?task=${UNKNOWN_TASK}`).set('Content-Type', 'application/json').set(headers).send(body);

/**
 * What a provider webhook costs before its signature is known: nothing reaches the network for an
 * unconfigured provider or a request without the signature headers (both 4xx), and the provider's secret
 * or keys are fetched at most once per interval however many requests arrive, concurrent ones sharing
 * one fetch; a failing secret endpoint is a 503 with Retry-After, never a 500.
 */
describe('provider webhook admission (before any network call)', () => {
  let fal: FakeFal;
  let replicate: FakeReplicate;
  const body = JSON.stringify({ id: 'p1', status: 'succeeded', output: 'https://example.com/v.mp4' });

  beforeAll(async () => {
    fal = await FakeFal.start();
    replicate = await FakeReplicate.start();
  });

  afterAll(async () => {
    await Promise.all([fal?.close(), replicate?.close()]);
  });

  const replicateCalls = () => replicate.upstream.callsTo('GET', REPLICATE_SECRET_PATH).length;
  const jwksCalls = () => fal.upstream.callsTo('GET', JWKS_PATH).length;
  const reset = () => {
    replicate.upstream.reset();
    fal.upstream.reset();
  };

  it('an unconfigured provider is a 404 for any webhook, even a validly signed one, and calls nothing', async () => {
    reset();
    const app = appWith([new ReplicateAdapter({ baseURL: `${replicate.baseUrl}` }), new FalAdapter({ jwksUrl: fal.jwksUrl })]);
    for (const headers of [{}, replicate.signWebhook('msg_1', body)]) {
      const res = await post(app, 'replicate', body, headers);
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ type: 'not_found', param: 'provider' });
    }
    for (const headers of [{}, fal.signWebhook('req-1', body)]) expect((await post(app, 'fal', body, headers)).status).toBe(404);
    expect(replicateCalls()).toBe(0);
    expect(jwksCalls()).toBe(0);
  });

  it('a webhook missing any signature header is a 400 naming the signature, and calls nothing', async () => {
    reset();
    const app = appWith([
      new ReplicateAdapter({ apiKey: 'r8_admission0123456789', baseURL: replicate.baseUrl }),
      new FalAdapter({ apiKey: 'fal-admission-key', jwksUrl: fal.jwksUrl }),
    ]);
    const r = replicate.signWebhook('msg_2', body);
    const f = fal.signWebhook('req-2', body);
    const without = (h: Record<string, string>, name: string) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== name));
    const cases: [string, Record<string, string>][] = [
      ['replicate', {}],
      ...['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((n): [string, Record<string, string>] => ['replicate', without(r, n)]),
      ['fal', {}],
      ...['x-fal-webhook-request-id', 'x-fal-webhook-user-id', 'x-fal-webhook-timestamp', 'x-fal-webhook-signature'].map((n): [string, Record<string, string>] => ['fal', without(f, n)]),
    ];
    for (const [provider, headers] of cases) {
      const res = await post(app, provider, body, headers);
      expect(res.status, `${provider} ${Object.keys(headers).join(',')}`).toBe(400);
      expect(res.body.error).toEqual({ type: 'invalid_request', param: 'signature' });
    }
    expect(replicateCalls()).toBe(0);
    expect(jwksCalls()).toBe(0);
  });

  it('40 concurrent forged webhooks fetch Replicate\'s secret once and fal\'s keys once', async () => {
    reset();
    const app = appWith([
      new ReplicateAdapter({ apiKey: 'r8_admission0123456789', baseURL: replicate.baseUrl }),
      new FalAdapter({ apiKey: 'fal-admission-key', jwksUrl: fal.jwksUrl }),
    ]);
    const forgedR = { ...replicate.signWebhook('msg_3', body), 'webhook-signature': `v1,${Buffer.alloc(32, 7).toString('base64')}` };
    const forgedF = { ...fal.signWebhook('req-3', body), 'x-fal-webhook-signature': 'ab'.repeat(64) };
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () => post(app, 'replicate', body, forgedR)),
      ...Array.from({ length: 20 }, () => post(app, 'fal', body, forgedF)),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(400));
    expect(replicateCalls()).toBe(1);
    expect(jwksCalls()).toBe(1);
  });

  it('a failing secret endpoint is asked at most once per minute: 503 with Retry-After, never a 500, then a fetch once the minute is over', async () => {
    reset();
    const c = clock();
    const app = appWith([new ReplicateAdapter({ apiKey: 'r8_admission0123456789', baseURL: replicate.baseUrl, now: c.now })]);
    replicate.upstream.failNext({ kind: 'status', status: 502, body: { detail: 'Bad gateway.' } }, { times: 1_000 });
    const signed = replicate.signWebhook('msg_4', body);
    const answers = [];
    for (let i = 0; i < 15; i++) answers.push(await post(app, 'replicate', body, signed));
    answers.push(...(await Promise.all(Array.from({ length: 15 }, () => post(app, 'replicate', body, signed)))));
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(503));
    expect(answers[0]?.body.error).toEqual({ type: 'service_unavailable', param: null });
    expect(Number(answers[29]?.headers['retry-after'])).toBeGreaterThan(0);
    expect(replicateCalls()).toBe(1);
    c.advance(61_000);
    replicate.upstream.reset(); // the secret endpoint works again
    const ok = await post(app, 'replicate', body, replicate.signWebhook('msg_5', body));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ received: true, applied: false, reason: 'unknown task' });
    expect(replicateCalls()).toBe(1);
  });

  it('after a signature mismatch fal\'s keys are refetched at most once per minute, concurrent mismatches sharing one refetch', async () => {
    reset();
    const c = clock();
    const app = appWith([new FalAdapter({ apiKey: 'fal-admission-key', jwksUrl: fal.jwksUrl, now: c.now })]);
    const forged = () => ({ ...fal.signWebhook('req-5', body, Math.floor(c.now() / 1000)), 'x-fal-webhook-signature': 'cd'.repeat(64) });
    expect((await post(app, 'fal', body, forged())).status).toBe(400);
    expect(jwksCalls()).toBe(1);
    for (let i = 0; i < 10; i++) expect((await post(app, 'fal', body, forged())).status).toBe(400);
    expect(jwksCalls()).toBe(1);
    c.advance(61_000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(app, 'fal', body, forged())));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(400));
    expect(jwksCalls()).toBe(2);
  });
});
