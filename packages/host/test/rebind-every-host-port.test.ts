import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { TOKENS } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import express from 'express';
import type { ServiceIdentifier } from 'inversify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGengateHost,
  HOST_BOUND_CORE_PORTS,
  HOST_PART_TOKENS,
  HOST_PORT_TOKENS,
  HOST_SETTING_TOKENS,
  HOST_TOKENS,
  type GengateHost,
  type HostTokenName,
} from '../src/index.js';
import { waitFor } from './support/spawn-server.js';

/** Calls per port, and a promise per port settled on its first call (the test waits on the event, never on time). */
class Recorder {
  readonly calls = new Map<string, number>();
  private readonly waiters = new Map<string, { promise: Promise<void>; resolve: () => void }>();

  private waiter(name: string) {
    let w = this.waiters.get(name);
    if (!w) {
      let resolve = (): void => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      w = { promise, resolve };
      this.waiters.set(name, w);
    }
    return w;
  }

  called(name: string): Promise<void> {
    return this.waiter(name).promise;
  }

  /**
   * A stand-in for a port: the same behaviour (every call goes to the original), another identity, calls
   * counted. `deep`: the port's object fields are stand-ins too (Stores: a call on `stores.tasks` counts).
   */
  recording<T extends object>(original: T, name: string, deep = false): T {
    return new Proxy(original, {
      get: (target, key) => {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value === 'object' && value !== null && deep && typeof key === 'string') return this.recording(value, name);
        if (typeof value !== 'function' || key === 'then' || key === 'constructor') return value;
        return (...args: unknown[]) => {
          this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
          this.waiter(name).resolve();
          return Reflect.apply(value, target, args);
        };
      },
    });
  }
}

const PORTS: readonly { readonly name: string; readonly token: ServiceIdentifier<object> }[] = [
  ...HOST_BOUND_CORE_PORTS.map((name) => ({ name, token: TOKENS[name] as ServiceIdentifier<object> })),
  ...HOST_PORT_TOKENS.map((name) => ({ name, token: HOST_TOKENS[name] as ServiceIdentifier<object> })),
];

describe('an embedder replaces any host port by rebinding it in createGengateHost’s configure', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let host: GengateHost;
  let server: Server;
  let base = '';
  const recorder = new Recorder();
  const rebound = new Map<string, object>();
  const originals = new Map<string, object>();

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 5 });
    host = await createGengateHost({
      database: { pool },
      adapters: [createSandboxAdapter({ latencyMs: { chat: 10, image: 10, video: 10 } })],
      filesDir: join(mkdtempSync(join(tmpdir(), 'gengate-rebind-')), 'files'),
      publicUrl: () => base,
      // Results go to the (rebound) blob store, not the task row: every port must see its call.
      settings: { shutdownGraceMs: 2_000, inlineResultMaxBytes: 0 },
      configure: (container) => {
        for (const { name, token } of PORTS) {
          const original = container.get(token);
          const replacement = recorder.recording(original, name, name === 'Stores');
          originals.set(name, original);
          rebound.set(name, replacement);
          container.rebind(token).toConstantValue(replacement);
        }
      },
    });
    await host.migrate();
    await host.startWorkers();
    const app = express();
    app.use('/api/v1', host.router);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await host?.close();
    await pool?.end();
    await db?.drop();
  });

  it('every host token is a port, a setting or a part (a new port is then rebound by the test below)', () => {
    const listed: readonly HostTokenName[] = [...HOST_PORT_TOKENS, ...HOST_SETTING_TOKENS, ...HOST_PART_TOKENS];
    expect([...listed].sort()).toEqual(Object.keys(HOST_TOKENS).sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('the host hands out the rebound ports, never the originals', () => {
    expect(host.blobStore).toBe(rebound.get('BlobStore'));
    expect(host.mailer).toBe(rebound.get('Mailer'));
    expect(host.paymentProcessor).toBe(rebound.get('PaymentProcessor'));
    expect(host.gengate.stores).toBe(rebound.get('Stores'));
    expect(host.gengate.unitOfWork).toBe(rebound.get('UnitOfWork'));
    for (const { name } of PORTS) expect(rebound.get(name), name).not.toBe(originals.get(name));
  });

  it('a task, a balance alert, a top-up and the callback secret run through every rebound port', { timeout: 30_000 }, async () => {
    const user = await host.gengate.admin.createUser({ email: 'rebind@example.com', credits: 10 });
    // The flow runs on a key with a rate limit, so that the rate limiter is asked (a key without limits is not counted).
    const created = await fetch(`${base}/api/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'limited', rate_limit_per_minute: 600 }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const api = (path: string, init: RequestInit = {}) => fetch(`${base}/api/v1${path}`, { ...init, headers });

    // An alert above the balance after one image (2 credits): its crossing is mailed by the alert worker.
    expect((await api('/billing/alerts', { method: 'POST', body: JSON.stringify({ threshold: 9 }) })).status).toBe(201);
    const submitted = await api('/run/sandbox.pixel-image', { method: 'POST', body: JSON.stringify({ prompt: 'rebound', image_params: { width: 64, height: 64 } }) });
    expect(submitted.status).toBe(200);
    const { task_id } = (await submitted.json()) as { task_id: string };
    const task = await waitFor(
      async () => {
        const t = (await (await api(`/run/tasks/${task_id}`)).json()) as { status: string; result_urls: string[] };
        return t.status === 'success' || t.status === 'fail' ? t : null;
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the task to end' },
    );
    expect(task.status).toBe('success');
    expect(task.result_urls).toHaveLength(1);
    expect((await fetch(task.result_urls[0] ?? '')).status).toBe(200);
    await recorder.called('Mailer');

    expect((await api('/billing/topup', { method: 'POST', body: JSON.stringify({ amount: 5 }) })).status).toBe(200);
    expect((await api('/webhook-secret')).status).toBe(200);
    // /metrics reads the routes' breakers through the rebound port.
    expect(await host.ops.metrics.registry.metrics()).toContain('gengate_route_circuit_state');

    const notCalled = PORTS.map((p) => p.name).filter((name) => (recorder.calls.get(name) ?? 0) === 0);
    expect(notCalled).toEqual([]);
  });
});
