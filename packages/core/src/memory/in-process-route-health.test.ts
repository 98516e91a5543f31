import { describe, expect, it } from 'vitest';
import type { RouteOutcome } from '../ports/route-health.js';
import { InProcessRouteHealth } from './in-process-route-health.js';

/** A clock the test moves by hand. */
function manualClock(start = Date.parse('2026-11-26T00:00:00Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

const R = 'fal.kling-v2.1-master';

function outcome(clock: { now: () => Date }, errorClass: string | null, latencyMs = 200): RouteOutcome {
  return { routeId: R, ok: errorClass === null, errorClass, latencyMs, at: clock.now() };
}

const stateOf = (h: InProcessRouteHealth, routeId = R) => h.states().find((s) => s.routeId === routeId);

describe('InProcessRouteHealth', () => {
  it('opens after 5 consecutive retryable failures and refuses until the cooldown ends', async () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({}, clock);
    for (let i = 0; i < 4; i++) h.record(outcome(clock, 'server'));
    expect(await h.admit(R)).toBe(true);
    expect(stateOf(h)).toMatchObject({ state: 'closed', consecutiveFailures: 4 });
    h.record(outcome(clock, 'network'));
    expect(stateOf(h)).toMatchObject({ state: 'open', consecutiveFailures: 5, openUntil: new Date(clock.now().getTime() + 15_000) });
    expect(await h.admit(R)).toBe(false);
    clock.advance(14_999);
    expect(await h.admit(R)).toBe(false);
  });

  it('a success restarts the consecutive count', () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({}, clock);
    for (let i = 0; i < 4; i++) h.record(outcome(clock, 'timeout'));
    h.record(outcome(clock, null));
    for (let i = 0; i < 4; i++) h.record(outcome(clock, 'rate_limited'));
    expect(stateOf(h)).toMatchObject({ state: 'closed', consecutiveFailures: 4, recentAttempts: 9, recentFailures: 8 });
  });

  it('a content-policy refusal or an invalid request is not the route’s fault; a cancelled attempt is not counted', () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({}, clock);
    for (let i = 0; i < 10; i++) h.record(outcome(clock, i % 2 === 0 ? 'content_policy' : 'invalid_input'));
    for (let i = 0; i < 10; i++) h.record(outcome(clock, 'aborted'));
    expect(stateOf(h)).toMatchObject({ state: 'closed', consecutiveFailures: 0, recentAttempts: 10, recentFailures: 0 });
  });

  it('opens at 50 % errors over at least 20 attempts in the window, never before 20', () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({}, clock);
    // Alternating: never 5 in a row.
    for (let i = 0; i < 19; i++) h.record(outcome(clock, i % 2 === 0 ? 'server' : null));
    expect(stateOf(h)).toMatchObject({ state: 'closed', recentAttempts: 19, recentFailures: 10 });
    h.record(outcome(clock, null));
    expect(stateOf(h)).toMatchObject({ state: 'open', recentAttempts: 20, recentFailures: 10 });
  });

  it('forgets outcomes older than the window', () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({}, clock);
    for (let i = 0; i < 10; i++) h.record(outcome(clock, i % 2 === 0 ? 'server' : null));
    clock.advance(30_000);
    for (let i = 0; i < 10; i++) h.record(outcome(clock, i % 2 === 0 ? 'server' : null));
    expect(stateOf(h)).toMatchObject({ state: 'closed', recentAttempts: 10, recentFailures: 5 });
  });

  it('opens on the latency p50 when a threshold is set', () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({ latencyP50Ms: 1_000, minAttempts: 4 }, clock);
    for (let i = 0; i < 3; i++) h.record(outcome(clock, null, 4_000));
    expect(stateOf(h)).toMatchObject({ state: 'closed', latencyP50Ms: 5_000 });
    h.record(outcome(clock, null, 4_000));
    expect(stateOf(h)?.state).toBe('open');
  });

  it('half-open admits one probe; a successful probe closes it and the window starts afresh', async () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({}, clock);
    for (let i = 0; i < 5; i++) h.record(outcome(clock, 'server'));
    clock.advance(15_000);
    const admitted = await Promise.all([h.admit(R), h.admit(R), h.admit(R)]);
    expect(admitted.filter(Boolean)).toHaveLength(1);
    expect(stateOf(h)?.state).toBe('half_open');
    h.record(outcome(clock, null));
    expect(stateOf(h)).toMatchObject({ state: 'closed', consecutiveFailures: 0, recentAttempts: 1, recentFailures: 0 });
    expect(await h.admit(R)).toBe(true);
  });

  it('a failed probe reopens with the cooldown doubled, up to 2 minutes', async () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({}, clock);
    for (let i = 0; i < 5; i++) h.record(outcome(clock, 'server'));
    const cooldowns: number[] = [];
    for (let round = 0; round < 5; round++) {
      const until = stateOf(h)?.openUntil?.getTime() ?? 0;
      cooldowns.push(until - clock.now().getTime());
      clock.advance(until - clock.now().getTime());
      expect(await h.admit(R)).toBe(true);
      h.record(outcome(clock, 'timeout'));
    }
    expect(cooldowns).toEqual([15_000, 30_000, 60_000, 120_000, 120_000]);
  });

  it('a probe that ends saying nothing (cancelled) lets the next caller probe; a probe that never reports expires', async () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({ probeLeaseMs: 10_000 }, clock);
    for (let i = 0; i < 5; i++) h.record(outcome(clock, 'server'));
    clock.advance(15_000);
    expect(await h.admit(R)).toBe(true);
    expect(await h.admit(R)).toBe(false);
    h.record(outcome(clock, 'aborted'));
    expect(await h.admit(R)).toBe(true);
    expect(await h.admit(R)).toBe(false);
    clock.advance(10_000);
    expect(await h.admit(R)).toBe(true);
  });

  it('keeps routes apart and refuses options that make no sense', () => {
    const clock = manualClock();
    const h = new InProcessRouteHealth({}, clock);
    for (let i = 0; i < 5; i++) h.record(outcome(clock, 'server'));
    h.record({ ...outcome(clock, null), routeId: 'replicate.kling-v2.1' });
    expect(stateOf(h, 'replicate.kling-v2.1')?.state).toBe('closed');
    expect(() => new InProcessRouteHealth({ cooldownMs: 60_000, maxCooldownMs: 1_000 })).toThrow(/maxCooldownMs/);
    expect(() => new InProcessRouteHealth({ errorRatePercent: 0 })).toThrow();
  });
});
