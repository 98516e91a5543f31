import { silentLogger, type RouteOutcome } from '@gengate/core';
import { describe, expect, it } from 'vitest';
import { PgRouteHealth } from './pg-route-health.js';
import type { Queryable } from './queryable.js';

const clock = { now: () => new Date('2026-11-26T02:00:00Z') };
const R = 'fal.flux-schnell';
const failure: RouteOutcome = { routeId: R, ok: false, errorClass: 'timeout', latencyMs: 1_200, at: clock.now() };

/** A database that is down: every statement fails (and is counted by its first word). */
function downDatabase() {
  const statements: string[] = [];
  const db: Queryable = {
    query: (text: string) => {
      statements.push(text.trim().split(/\s+/)[0] ?? '');
      return Promise.reject(new Error('connection refused'));
    },
  };
  return { db, statements };
}

describe('PgRouteHealth without its database', () => {
  it('never throws: admit answers from the last view (closed: no statement at all), outcomes are kept for the next flush', async () => {
    const { db, statements } = downDatabase();
    const h = new PgRouteHealth(db, 'gengate', clock, silentLogger, { flushIntervalMs: 3_600_000, refreshIntervalMs: 3_600_000 });
    const admitted = await Promise.all(Array.from({ length: 50 }, () => h.admit(R)));
    expect(admitted.every(Boolean)).toBe(true);
    // Only the first refresh was tried (the timers start on first use); admitting a closed route asked nothing.
    expect(statements).toEqual(['select']);
    for (let i = 0; i < 3; i++) h.record(failure);
    await h.flush();
    await h.flush();
    expect(statements.filter((s) => s === 'insert')).toHaveLength(2);
    expect(h.states()).toEqual([{ routeId: R, state: 'closed', openUntil: null, consecutiveFailures: 3, recentAttempts: 3, recentFailures: 3, latencyP50Ms: 2_500 }]);
    await h.close();
  });
});
