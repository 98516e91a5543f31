import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';

/** Node's `gc()` with the options of `--expose-gc` (Node 22+). */
type ExposedGc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface IdleMemoryReleaseOptions {
  readonly logger: Logger;
  /** How often the event loop's utilization is sampled. Default 500 ms. */
  readonly intervalMs?: number;
  /** A sample at or above this utilization marks the process busy. Default 0.3. */
  readonly busyUtilization?: number;
  /**
   * A sample at or below this utilization counts as idle. Default 0.03: a host answering 1,000 polls a second
   * runs at about 10 %, and a collection's pause there lands on requests (measured: the poll's p99 at 1,000/s).
   */
  readonly idleUtilization?: number;
  /**
   * Below this many bytes nothing is done: of old-space pages held beyond what is in use, and of old-space
   * growth since the last release (or the start). Default 16 MiB.
   */
  readonly minSpareBytes?: number;
  /** Told of each release (for metrics and tests). */
  readonly onRelease?: (release: MemoryReleased) => void;
}

/** One release: the old space's spare bytes and committed size before and after, and the collection's pause. */
export interface MemoryReleased {
  readonly spareBeforeBytes: number;
  readonly spareAfterBytes: number;
  readonly oldSpaceBeforeBytes: number;
  readonly oldSpaceAfterBytes: number;
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  readonly pauseMs: number;
}

export interface IdleMemoryRelease {
  /** How many times memory was given back so far. */
  readonly releases: () => number;
  stop(): void;
}

const MiB = 1_048_576;

/** The old space's pages held beyond its live objects (committed minus used), in bytes. */
function spareOldSpace(): number {
  const old = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
  return old ? old.space_size - old.space_used_size : 0;
}

/** The old space's committed size, in bytes. */
function oldSpaceSize(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_size ?? 0;
}

/** `gc` from V8's extension, set up at run time (the flag applies to contexts made after it). */
function exposedGc(): ExposedGc {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as ExposedGc;
}

/**
 * Gives the JavaScript heap's spare pages back to the operating system when a busy process goes idle.
 *
 * Under load V8 grows the old space (requests that outlive a young-generation collection are promoted)
 * and keeps the pages after collecting them: measured by `npm run bench` (docs/benchmarks-history.md, "Resident
 * memory"), a host held 119 MB of old space for 35 MB of objects after the submission loads. V8 gives such
 * pages back only in a memory-reducing collection, which it starts by itself late or never in a server
 * process. So after a busy period (a sample at `busyUtilization` or more) the first idle sample (at
 * `idleUtilization` or less) runs one full, memory-reducing collection (`gc({ flavor: 'last-resort' })`),
 * when at least `minSpareBytes` of old space is spare, or the old space has grown by that much since the last
 * release: "in use" counts dead objects until a full collection has run, so right after a load (the
 * pipeline's, measured) the old space can read as full of garbage with nothing spare. It runs while the event loop is idle, so the pause
 * (tens of milliseconds for this host's live heap) falls where no request waits; a steadily busy process
 * is never interrupted.
 */
export function startIdleMemoryRelease(options: IdleMemoryReleaseOptions): IdleMemoryRelease {
  const intervalMs = options.intervalMs ?? 500;
  const busy = options.busyUtilization ?? 0.3;
  const idle = options.idleUtilization ?? 0.03;
  const minSpare = options.minSpareBytes ?? 16 * MiB;
  const gc = exposedGc();
  const log = options.logger.child({ component: 'idle-memory-release' });
  let last = performance.eventLoopUtilization();
  let wasBusy = false;
  let releases = 0;
  let baseline = oldSpaceSize();
  const timer = setInterval(() => {
    const sample = performance.eventLoopUtilization(last);
    last = performance.eventLoopUtilization();
    if (sample.utilization >= busy) {
      wasBusy = true;
      return;
    }
    if (!wasBusy || sample.utilization > idle) return;
    wasBusy = false;
    const spare = spareOldSpace();
    const oldSpaceBeforeBytes = oldSpaceSize();
    if (spare < minSpare && oldSpaceBeforeBytes - baseline < minSpare) return;
    const rssBeforeBytes = process.memoryUsage.rss();
    const t0 = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    releases++;
    baseline = oldSpaceSize();
    const released: MemoryReleased = { spareBeforeBytes: spare, spareAfterBytes: spareOldSpace(), oldSpaceBeforeBytes, oldSpaceAfterBytes: baseline, rssBeforeBytes, rssAfterBytes: process.memoryUsage.rss(), pauseMs: performance.now() - t0 };
    log.debug({ spareMb: Math.round(spare / MiB), rssBeforeMb: Math.round(rssBeforeBytes / MiB), rssAfterMb: Math.round(released.rssAfterBytes / MiB), pauseMs: Math.round(released.pauseMs) }, 'idle: heap pages given back');
    options.onRelease?.(released);
  }, intervalMs);
  timer.unref();
  return {
    releases: () => releases,
    stop: () => clearInterval(timer),
  };
}
