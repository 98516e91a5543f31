import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { TOKENS, type RouteOutcome } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateHost, type GengateHost } from '../src/index.js';
import { waitFor } from './support/spawn-server.js';

/** One clock both hosts read, moved by the test (the cooldown ends when the test says so). */
const clock = (() => {
  let now = Date.parse('2026-11-26T01:00:00Z');
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
})();

const ROUTE = 'fal.kling-v2.1-master';
const OTHER = 'replicate.kling-v2.1';

const failure = (routeId = ROUTE): RouteOutcome => ({ routeId, ok: false, errorClass: 'server', latencyMs: 300, at: clock.now() });
const success = (routeId = ROUTE): RouteOutcome => ({ routeId, ok: true, errorClass: null, latencyMs: 300, at: clock.now() });

/** Two hosts on one database: what two API or worker processes of one deployment are to each other. */
describe('route health shared through PostgreSQL by two hosts', () => {
  let db: TestDatabase;
  const pools: pg.Pool[] = [];
  const hosts: GengateHost[] = [];
  let a: GengateHost;
  let b: GengateHost;

  const newHost = async (): Promise<GengateHost> => {
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    pools.push(pool);
    const host = await createGengateHost({
      database: { pool },
      adapters: [createSandboxAdapter()],
      filesDir: join(mkdtempSync(join(tmpdir(), 'gengate-route-health-')), 'files'),
      settings: { routeHealth: { flushIntervalMs: 50, refreshIntervalMs: 100 } },
      configure: (container) => container.rebind(TOKENS.Clock).toConstantValue(clock),
    });
    hosts.push(host);
    return host;
  };

  const stateIn = (host: GengateHost, routeId = ROUTE) => host.gengate.routeHealth.states().find((s) => s.routeId === routeId);
  const metricLine = async (host: GengateHost, state: string, routeId = ROUTE) =>
    (await host.ops.metrics.registry.metrics()).split('\n').find((l) => l.startsWith(`gengate_route_circuit_state{route="${routeId}",state="${state}"}`));

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await newHost();
    b = await newHost();
    await a.migrate();
  });

  afterAll(async () => {
    for (const h of hosts) await h.close();
    for (const p of pools) await p.end();
    await db?.drop();
  });

  it('failures recorded in one process open the circuit in the other, which then refuses without asking the database', async () => {
    // B has seen the route closed (admitted from its empty view).
    expect(await b.gengate.routeHealth.admit(ROUTE)).toBe(true);
    for (let i = 0; i < 4; i++) a.gengate.routeHealth.record(failure());
    a.gengate.routeHealth.record(success(OTHER));
    a.gengate.routeHealth.record(failure());
    await waitFor(async () => ((await b.gengate.routeHealth.admit(ROUTE)) ? null : true), { timeoutMs: 5_000, what: 'B to refuse the route A saw fail' });
    expect(stateIn(b)).toMatchObject({ state: 'open', consecutiveFailures: 5, openUntil: new Date(clock.now().getTime() + 15_000) });
    expect(await a.gengate.routeHealth.admit(ROUTE)).toBe(false);
    expect(await b.gengate.routeHealth.admit(OTHER)).toBe(true);
    expect(stateIn(b, OTHER)).toMatchObject({ state: 'closed', recentAttempts: 1, recentFailures: 0 });
    expect(await metricLine(b, 'open')).toBe(`gengate_route_circuit_state{route="${ROUTE}",state="open"} 1`);
    expect(await metricLine(b, 'closed')).toBe(`gengate_route_circuit_state{route="${ROUTE}",state="closed"} 0`);
    // The counters are per process: A counted the attempts it recorded.
    expect(await a.ops.metrics.registry.metrics()).toContain(`gengate_route_failures_total{route="${ROUTE}",error_class="server"} 5`);
  });

  it('after the cooldown, concurrent admits in both processes let exactly one probe through', async () => {
    clock.advance(15_000);
    const admits = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? a : b).gengate.routeHealth.admit(ROUTE)));
    expect(admits.filter(Boolean)).toHaveLength(1);
    // Both now see it half-open, and neither lets another call through while the probe runs.
    await waitFor(async () => (stateIn(a)?.state === 'half_open' && stateIn(b)?.state === 'half_open' ? true : null), { timeoutMs: 5_000, what: 'both to see half-open' });
    expect(await a.gengate.routeHealth.admit(ROUTE)).toBe(false);
    expect(await b.gengate.routeHealth.admit(ROUTE)).toBe(false);
    // The probe fails: open again, with the cooldown doubled.
    const prober = admits.findIndex(Boolean) % 2 === 0 ? a : b;
    prober.gengate.routeHealth.record(failure());
    const reopened = await waitFor(async () => {
      const s = stateIn(prober === a ? b : a);
      return s?.state === 'open' ? s : null;
    }, { timeoutMs: 5_000, what: 'the other process to see it open again' });
    expect(reopened.openUntil).toEqual(new Date(clock.now().getTime() + 30_000));
  });

  it('a successful probe closes it in every process, and the window starts afresh', async () => {
    clock.advance(30_000);
    const admits = await Promise.all([a.gengate.routeHealth.admit(ROUTE), b.gengate.routeHealth.admit(ROUTE), a.gengate.routeHealth.admit(ROUTE), b.gengate.routeHealth.admit(ROUTE)]);
    expect(admits.filter(Boolean)).toHaveLength(1);
    const prober = admits.findIndex(Boolean) % 2 === 0 ? a : b;
    const other = prober === a ? b : a;
    prober.gengate.routeHealth.record(success());
    await waitFor(async () => ((await other.gengate.routeHealth.admit(ROUTE)) ? true : null), { timeoutMs: 5_000, what: 'the other process to admit again' });
    await waitFor(async () => (stateIn(other)?.state === 'closed' ? true : null), { timeoutMs: 5_000, what: 'closed everywhere' });
    expect(stateIn(other)).toMatchObject({ state: 'closed', consecutiveFailures: 0, recentFailures: 0, openUntil: null });
    // Four failures after closing do not reopen it (the count restarted).
    for (let i = 0; i < 4; i++) other.gengate.routeHealth.record(failure());
    await waitFor(async () => (stateIn(prober)?.consecutiveFailures === 4 ? true : null), { timeoutMs: 5_000, what: 'the failures to reach the prober' });
    expect(stateIn(prober)?.state).toBe('closed');
    expect(await prober.gengate.routeHealth.admit(ROUTE)).toBe(true);
  });
});
