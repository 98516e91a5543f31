import { FalAdapter, ReplicateAdapter } from '@gengate/adapters';
import { TOKENS, type RoutedModelDeclaration } from '@gengate/core';
import { createMemoryGengate, type MemoryGengate } from '@gengate/testing';
import express, { type Express } from 'express';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';
import request from './support/contract-request.js';

/*
 * Routed models over HTTP (issue 21): the listing with routes and price range, and bad routing input on
 * POST /run refused with a catalogued error body and nothing written. Every exchange is checked against
 * docs/openapi.yaml by contract-request. No upstream is called (the providers are configured, not reached).
 */

const FLUX: RoutedModelDeclaration = { id: 'flux-schnell', name: 'FLUX.1 [schnell]', routes: ['fal.flux-schnell', 'replicate.flux-schnell'], policy: { sort: 'price' } };

describe('routed models over HTTP', () => {
  let m: MemoryGengate;
  let app: Express;
  let key: string;
  const get = (path: string) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${key}`);
  const run = (model: string, body: object) => request(app).post(`/api/v1/run/${model}`).set('Authorization', `Bearer ${key}`).send(body);

  beforeEach(async () => {
    m = createMemoryGengate({
      adapters: [new FalAdapter({ apiKey: 'fal-http-key-0123456789' }), new ReplicateAdapter({ apiKey: 'r8_httptoken0123456789' })],
      configure: (c) => {
        c.rebind(TOKENS.RoutedModels).toConstantValue([FLUX]);
      },
    });
    app = express().use('/api/v1', createGengateRouter({ gengate: m.gengate, blobStore: m.blobs, logger: pino({ level: 'silent' }) }));
    key = (await m.gengate.admin.createUser({ email: 'router@example.com', credits: 100 })).api_key;
  });

  it('lists a routed model with its routes, the quote of a default task on each and the price range', async () => {
    const res = await get('/models?search=schnell&per_page=50');
    expect(res.status).toBe(200);
    const routed = (res.body.data as { id: string }[]).find((x) => x.id === 'flux-schnell');
    expect(routed).toMatchObject({
      id: 'flux-schnell',
      provider: 'routed',
      modality: 'image',
      is_active: true,
      routes: [
        { id: 'fal.flux-schnell', provider: 'fal', is_active: true, default_task_credits: 0.3 },
        { id: 'replicate.flux-schnell', provider: 'replicate', is_active: true, default_task_credits: 0.3 },
      ],
      price_range: { min_credits: 0.3, max_credits: 0.3 },
    });
    // A provider model is listed as before, without routes.
    expect((res.body.data as Record<string, unknown>[]).find((x) => x['id'] === 'fal.flux-schnell')).not.toHaveProperty('routes');
    const detail = await get('/models/flux-schnell');
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: 'flux-schnell', inactive_reason: null, routes: expect.any(Array) });
  });

  it('refuses bad routing input with the catalogued error body, nothing held or written', async () => {
    const cases: [object, number, string, string][] = [
      [{ provider: { only: ['openai'] } }, 400, 'invalid_routing', 'provider.only[0]'],
      [{ models: ['nope.model'] }, 400, 'invalid_routing', 'models[0]'],
      [{ provider: { max_price: 0.1 } }, 422, 'no_route_available', 'provider.max_price'],
      [{ provider: { ignore: ['fal', 'replicate'] } }, 422, 'no_route_available', 'provider'],
      [{ provider: { sort: 'cheapest' } }, 400, 'invalid_request', 'provider.sort'],
      [{ provider: { weights: [{ route: 'fal', weight: 2 }] } }, 400, 'invalid_request', 'provider.weights'],
    ];
    for (const [routing, status, type, param] of cases) {
      const res = await run('flux-schnell', { prompt: 'a lighthouse', ...routing });
      expect({ routing, status: res.status, type: res.body.error?.type, param: res.body.error?.param }).toEqual({ routing, status, type, param });
      expect(res.body.code).toBe(status);
      expect(typeof res.body.message).toBe('string');
    }
    expect(m.db.tasks.size).toBe(0);
    expect(m.db.holds.size).toBe(0);
    const balance = await get('/billing/balance');
    expect(balance.body).toMatchObject({ credits: 100, available_credits: 100 });
  });

  it('accepts the routing fields on a provider model id too (one route)', async () => {
    const res = await run('replicate.flux-schnell', { prompt: 'a lighthouse', provider: { allow_fallbacks: false, max_price: 1 } });
    expect(res.status).toBe(200);
    expect(m.db.holds.get(res.body.task_id as string)?.amountMicro).toBe(300_000);
  });
});
