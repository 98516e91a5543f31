import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOGUE } from '@gengate/core';
import { createMemoryGengate } from '@gengate/testing';
import type { Router } from 'express';
import pino from 'pino';
import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { openApiJson } from '../../../scripts/generate-openapi.js';
import { CallbackRepository } from '../src/callbacks/callback-repository.js';
import { createGengateRouter } from '../src/http/create-router.js';
import { OPENAPI_DOCUMENT_FILE } from '../src/http/routes/openapi-document.js';
import { loadOpenApiDocument, OpenApiContract } from './support/openapi-contract.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';

type Obj = Record<string, unknown>;
const doc = loadOpenApiDocument();
const contract = new OpenApiContract(doc);

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every "METHOD /path" the router serves, paths in OpenAPI form ({param}). */
function routesOf(router: Router): string[] {
  const out = new Set<string>();
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on && method !== '_all') out.add(`${method.toUpperCase()} ${layer.route.path.replace(/:(\w+)/g, '{$1}')}`);
        }
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((router as unknown as { stack: Layer[] }).stack);
  return [...out].sort();
}

function documented(): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc['paths'] as Obj)) {
    for (const method of Object.keys(item as Obj)) if (method !== 'parameters') out.push(`${method.toUpperCase()} ${path}`);
  }
  return out.sort();
}

describe('docs/openapi.yaml', () => {
  it('is OpenAPI 3.1 and documents exactly the routes the router serves (with every optional part mounted)', () => {
    expect(doc['openapi']).toMatch(/^3\.1\./);
    const memory = createMemoryGengate();
    const router = createGengateRouter({
      gengate: memory.gengate,
      blobStore: memory.blobs,
      logger: pino({ level: 'silent' }),
      stripeWebhook: { stripe: {} as Stripe, webhookSecret: 'whsec_test' },
      callbacks: new CallbackRepository({ query: async () => ({ rows: [], rowCount: 0 }) } as never, DEFAULT_SCHEMA),
    });
    expect(documented()).toEqual(routesOf(router));
  });

  it("lists the error catalogue's types, and each error response its types and status", () => {
    const schemas = (doc['components'] as Obj)['schemas'] as Obj;
    expect((schemas['ErrorType'] as Obj)['enum']).toEqual(Object.keys(ERROR_CATALOGUE));
    const responses = (doc['components'] as Obj)['responses'] as Record<string, Obj>;
    for (const [name, response] of Object.entries(responses)) {
      const schema = (((response['content'] as Obj)['application/json'] as Obj)['schema'] as Obj)['allOf'] as Obj[];
      const override = schema[1]?.['properties'] as Obj;
      const status = (override['code'] as Obj)['const'] as number;
      const typeSchema = ((override['error'] as Obj)['properties'] as Obj)['type'] as Obj;
      const types = (typeSchema['enum'] ?? [typeSchema['const']]) as (keyof typeof ERROR_CATALOGUE)[];
      for (const type of types) expect(ERROR_CATALOGUE[type]?.status, `${name}: ${type}`).toBe(status);
    }
  });

  it('is carried by the host package as JSON, and that copy is current (else run `npm run generate:openapi`)', () => {
    expect(readFileSync(OPENAPI_DOCUMENT_FILE, 'utf8')).toBe(openApiJson());
  });
});

describe('the contract check used by every HTTP test', () => {
  const ok = { method: 'GET', url: '/api/v1/billing/balance', requestHeaders: { authorization: 'Bearer gg_live_x' }, responseHeaders: { 'content-type': 'application/json', 'x-request-id': 'r1' } };
  const balance = { credits: 1, currency: 'USD', held_credits: 0, available_credits: 1 };

  it('accepts a documented exchange', () => {
    expect(contract.check({ ...ok, status: 200, responseText: JSON.stringify(balance) })).toEqual([]);
  });

  it('refuses a renamed or added response field, a missing required header and an undocumented status', () => {
    const renamed = { credits: 1, currency: 'USD', held: 0, available_credits: 1 };
    expect(contract.check({ ...ok, status: 200, responseText: JSON.stringify(renamed) }).join()).toMatch(/held_credits.*additional properties/);
    expect(contract.check({ ...ok, status: 200, responseText: JSON.stringify({ ...balance, extra: 1 }) }).join()).toMatch(/additional properties/);
    expect(contract.check({ ...ok, responseHeaders: { 'content-type': 'application/json' }, status: 200, responseText: JSON.stringify(balance) }).join()).toMatch(/X-Request-Id is missing/);
    expect(contract.check({ ...ok, status: 418, responseText: '{}' }).join()).toMatch(/status 418 is not documented/);
  });

  it('refuses a request the document calls invalid that the server accepted, and accepts its refusal', () => {
    const run = { method: 'POST', url: '/api/v1/run/sandbox.echo-chat', requestHeaders: { authorization: 'Bearer k', 'content-type': 'application/json' }, requestBody: { prompt: 'x', stream: true } };
    const accepted = { code: 200, message: 'Task accepted.', task_id: '2a7c9685-e79e-4715-9abb-a77edfdb7de6', status: 'waiting' };
    expect(contract.check({ ...run, status: 200, responseHeaders: ok.responseHeaders, responseText: JSON.stringify(accepted) }).join()).toMatch(/does not match the document .*stream.* but was answered 200/);
    const refusal = { code: 400, message: 'Unknown field(s): stream.', error: { type: 'invalid_request', param: 'stream' } };
    expect(contract.check({ ...run, status: 400, responseHeaders: ok.responseHeaders, responseText: JSON.stringify(refusal) })).toEqual([]);
    const wrongType = { ...refusal, error: { type: 'rate_limited', param: null } };
    expect(contract.check({ ...run, status: 400, responseHeaders: ok.responseHeaders, responseText: JSON.stringify(wrongType) }).join()).toMatch(/response 400 body/);
  });

  it('lets an undocumented path or method only be refused', () => {
    const notFound = JSON.stringify({ code: 404, message: 'No endpoint.', error: { type: 'not_found', param: null } });
    expect(contract.check({ ...ok, url: '/api/v1/nope', status: 404, responseText: notFound })).toEqual([]);
    expect(contract.check({ ...ok, url: '/api/v1/nope', status: 200, responseText: '{}' }).join()).toMatch(/undocumented path answered 200/);
    expect(contract.check({ ...ok, method: 'DELETE', url: '/api/v1/models', status: 200, responseText: '{}' }).join()).toMatch(/other than get answered 200/);
  });

  it('checks a callback delivery against the taskFinished webhook', () => {
    const task = { task_id: '2a7c9685-e79e-4715-9abb-a77edfdb7de6', status: 'success', result_urls: [], error_message: null, created_at: '2026-11-22T13:16:09.905Z' };
    const headers = { 'content-type': 'application/json', 'user-agent': 'gengate-callbacks/1', 'webhook-id': `msg_${task.task_id}`, 'webhook-timestamp': '1732281369', 'webhook-signature': 'v1,abc=' };
    expect(contract.checkWebhook('taskFinished', headers, JSON.stringify(task))).toEqual([]);
    expect(contract.checkWebhook('taskFinished', { ...headers, 'webhook-signature': undefined }, JSON.stringify(task)).join()).toMatch(/webhook-signature is required/);
    expect(contract.checkWebhook('taskFinished', headers, JSON.stringify({ ...task, status: 'done' })).join()).toMatch(/status/);
  });

  it('is the only way host tests use supertest (so every in-process exchange is checked)', () => {
    const dir = import.meta.dirname;
    const direct = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => readFileSync(join(dir, f), 'utf8').includes(`from ${"'"}supertest'`));
    // http-bad-bodies sends bytes no documented request could carry (gzip bombs, broken
    // percent-encoding, raw binary); it asserts every answer is a JSON 4xx error itself.
    expect(direct).toEqual(['http-bad-bodies.test.ts']);
  });
});
