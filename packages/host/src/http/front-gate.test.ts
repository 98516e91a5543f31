import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { Router, type Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { frontWithSlot, setFrontGate, type FrontGate } from './front-gate.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A router whose first layer is frontWithSlot's, entering a middleware that marks the request, then a route. */
async function serve(router: Router): Promise<string> {
  router.use(frontWithSlot(router, (_req, res, next) => {
    res.setHeader('x-entered', 'yes');
    next();
  }));
  router.get('/ping', (_req, res) => {
    res.json({ ok: true });
  });
  const server = await new Promise<Server>((resolve) => {
    const s = express().use('/api', router).listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ping`;
}

describe('frontWithSlot / setFrontGate', () => {
  it('without a gate every request enters', async () => {
    const url = await serve(Router());
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-entered')).toBe('yes');
  });

  it('a closed gate is waited for; when it opens the request enters, when it answers the request nothing else runs', async () => {
    const router = Router();
    const url = await serve(router);
    let open = false;
    let answer = false;
    const waits: string[] = [];
    const gate: FrontGate = {
      open: () => open,
      wait: async (res: Response) => {
        waits.push('wait');
        if (answer) {
          res.status(503).json({ error: 'not ready' });
          return false;
        }
        open = true;
        return true;
      },
    };
    expect(setFrontGate(router, gate)).toBe(true);
    answer = true;
    const refused = await fetch(url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('x-entered')).toBeNull();
    answer = false;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-entered')).toBe('yes');
    const later = await fetch(url);
    expect(later.status).toBe(200);
    expect(waits).toEqual(['wait', 'wait']);
  });

  it('a slot is filled once; a router without one is refused', () => {
    const router = Router();
    router.use(frontWithSlot(router, (_req, _res, next) => next()));
    const gate: FrontGate = { open: () => true, wait: async () => true };
    expect(setFrontGate(router, gate)).toBe(true);
    expect(setFrontGate(router, gate)).toBe(false);
    expect(setFrontGate(Router(), gate)).toBe(false);
  });
});
