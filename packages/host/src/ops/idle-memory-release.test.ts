import { setTimeout as delay } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startIdleMemoryRelease, type MemoryReleased } from './idle-memory-release.js';

/** Keeps the event loop busy for `ms` (a busy sample for the release's utilization check). */
/** Allocates objects that live long enough to be promoted to the old space, then drops them. */
function churn(): void {
  let held: { i: number; s: string }[][] = [];
  for (let round = 0; round < 8; round++) {
    held.push(Array.from({ length: 50_000 }, (_, i) => ({ i, s: `item ${i}` })));
    if (held.length > 4) held.shift();
  }
  held = [];
}

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) Math.sqrt(Math.random());
}

describe('startIdleMemoryRelease', () => {
  it('after a busy period, the first idle sample gives the old space back', async () => {
    const baselineAtStart = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_size ?? 0;
    const released = new Promise<MemoryReleased>((resolve) => {
      const release = startIdleMemoryRelease({ logger: pino({ level: 'silent' }), intervalMs: 100, minSpareBytes: 1_048_576, onRelease: (r) => { release.stop(); resolve(r); } });
    });
    // Objects that live long enough to be promoted, then dropped: old space held beyond what is in use; then a
    // busy sample. On a loaded machine V8's own idle-time GC may shrink the old space before the first idle
    // sample comes (the release then has nothing to give back and waits for the next busy period): so the
    // churn and the busy period are repeated until the release is seen, a bounded number of times.
    let r: MemoryReleased | null = null;
    for (let attempt = 0; attempt < 20 && r === null; attempt++) {
      churn();
      spin(250);
      r = await Promise.race([released, delay(1_000).then(() => null)]);
    }
    if (r === null) throw new Error('no release after 20 busy periods');
    // Triggered by spare pages or by the old space's growth since the start (dead objects count as used until
    // a full collection): either way the collection gives pages back.
    expect(Math.max(r.spareBeforeBytes, r.oldSpaceBeforeBytes - baselineAtStart)).toBeGreaterThanOrEqual(1_048_576);
    expect(r.oldSpaceAfterBytes).toBeLessThan(r.oldSpaceBeforeBytes);
    expect(r.pauseMs).toBeGreaterThan(0);
  });
});
