import express from 'express';
import pino from 'pino';
import { createMemoryGengate } from '@gengate/testing';
import { describe, expect, it } from 'vitest';
import { createApiReferenceRouter } from '../src/http/api-reference.js';
import { createGengateRouter } from '../src/http/create-router.js';
import request from './support/contract-request.js';

/** GET /api/v1/openapi.json and the /docs page, which must work with no internet (no CDN, no online validator). */
describe('the OpenAPI document and the API reference page', () => {
  const memory = createMemoryGengate();
  const app = express()
    .use('/docs', createApiReferenceRouter())
    .use('/api/v1', createGengateRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger: pino({ level: 'silent' }) }));

  it('serves the document as JSON without an API key, with servers naming the mount path', async () => {
    const res = await request(app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.openapi).toMatch(/^3\.1\./);
    expect(res.body.servers).toEqual([{ url: '/api/v1', description: 'This server' }]);
    expect(Object.keys(res.body.paths)).toContain('/run/{model_id}');
    const mounted = await request(express().use('/gateway/v1', createGengateRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger: pino({ level: 'silent' }) }))).get(
      '/gateway/v1/openapi.json',
    );
    expect(mounted.body.servers).toEqual([{ url: '/gateway/v1', description: 'This server' }]);
    expect((await request(app).post('/api/v1/openapi.json')).status).toBe(401); // only GET is open
  });

  it('serves a page whose every asset is same-origin and answers 200, with the online validator off', async () => {
    const page = await request(app).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const refs = [...page.text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(refs.length).toBeGreaterThanOrEqual(3);
    expect(page.text).not.toMatch(/https?:\/\//);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^\/docs\/[\w.-]+$/); // an absolute path on this origin, never //host or http(s):
      const asset = await request(app).get(ref);
      expect(asset.status, ref).toBe(200);
      expect(Number(asset.headers['content-length'] ?? asset.text?.length ?? 0), ref).toBeGreaterThan(0);
    }
    const init = await request(app).get('/docs/init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('"url":"/api/v1/openapi.json"');
    expect(init.text).toContain('"validatorUrl":null');
    const css = await request(app).get('/docs/swagger-ui.css');
    expect(css.text).not.toMatch(/url\(\s*["']?(https?:)?\/\//); // no fonts or images from elsewhere
    expect((await request(app).get('/docs/index.html')).status).toBe(404); // only the listed assets are served
  });

  it('sends a Content-Security-Policy and frame protection with the page and every asset (no inline script, no framing)', async () => {
    for (const path of ['/docs', '/docs/', '/docs/init.js', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js']) {
      const res = await request(app).get(path);
      expect(res.status, path).toBe(200);
      const csp = String(res.headers['content-security-policy'] ?? '');
      expect(csp, path).toContain("default-src 'self'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("object-src 'none'");
      expect(res.headers['x-frame-options'], path).toBe('DENY');
      expect(res.headers['x-content-type-options'], path).toBe('nosniff');
      expect(res.headers['referrer-policy'], path).toBe('no-referrer');
    }
    const page = await request(app).get('/docs');
    expect(page.text).not.toMatch(/<script>[^<]/); // every script is a same-origin file the policy allows
  });
});
