import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startIdleMemoryRelease, type MemoryReleased } from './idle-memory-release.js';

/** Keeps the event loop busy for `ms` (a busy sample for the release's utilization check). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) Math.sqrt(Math.random());
}

describe('startIdleMemoryRelease', () => {
  it('after a busy period, the first idle sample gives the old space back', async () => {
    const released = new Promise<MemoryReleased>((resolve) => {
      const release = startIdleMemoryRelease({ logger: pino({ level: 'silent' }), intervalMs: 100, minSpareBytes: 1_048_576, onRelease: (r) => { release.stop(); resolve(r); } });
    });
    // Objects that live long enough to be promoted, then dropped: old space held beyond what is in use.
    let held: { i: number; s: string }[][] = [];
    for (let round = 0; round < 8; round++) {
      held.push(Array.from({ length: 50_000 }, (_, i) => ({ i, s: `item ${i}` })));
      if (held.length > 4) held.shift();
    }
    held = [];
    spin(250); // a busy sample
    const r = await released; // then idle: the release runs
    expect(held).toHaveLength(0);
    expect(r.spareBeforeBytes).toBeGreaterThanOrEqual(1_048_576);
    expect(r.spareAfterBytes).toBeLessThan(r.spareBeforeBytes);
    expect(r.pauseMs).toBeGreaterThan(0);
  });
});
