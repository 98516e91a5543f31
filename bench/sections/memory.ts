import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rssMb } from '../support/process-stats.js';

/** Where the host processes' probes (bench/probes/) write; startHost passes it as GENGATE_PROBE_DIR. */
export const PROBE_DIR = mkdtempSync(join(tmpdir(), 'gengate-bench-probes-'));
process.on('exit', () => rmSync(PROBE_DIR, { recursive: true, force: true }));

interface Snapshot {
  readonly rssMb: number;
  readonly smapsRollupMb: { readonly rss: number; readonly anonymous: number; readonly sharedClean: number; readonly privateClean: number };
  readonly memoryUsageMb: { readonly heapTotal: number; readonly heapUsed: number; readonly external: number; readonly arrayBuffers: number };
  readonly v8Mb: { readonly totalPhysical: number; readonly malloced: number };
  readonly spacesMb: Record<string, { readonly committed: number; readonly used: number; readonly resident: number } | undefined>;
  readonly threads: number;
}

/** A host process's resident memory and what holds it (bench/probes/memory-probe.mjs). */
export interface MemoryReading {
  readonly rssMb: number;
  /** V8's heap pages in memory (all spaces). */
  readonly v8ResidentMb: number;
  /** The young generation (new space: two semi-spaces) in memory. */
  readonly youngMb: number;
  readonly oldSpaceMb: number;
  readonly oldSpaceUsedMb: number;
  /** The JS heap still reachable after a full collection (only when the host runs with --expose-gc). */
  readonly liveHeapMb: number | null;
  /** File-backed pages: the node binary's code and shared libraries. */
  readonly fileBackedMb: number;
  /** Anonymous memory outside V8's heap: malloc (glibc arenas, Buffers' backing stores), thread stacks. */
  readonly otherAnonymousMb: number;
  readonly threads: number;
  readonly probe: unknown;
}

/** Asks the host's memory probe for a reading (SIGUSR2); without a probe, only the RSS from /proc. */
export async function memoryOf(pid: number): Promise<MemoryReading> {
  const mine = () => readdirSync(PROBE_DIR).filter((f) => f.startsWith(`memory-${pid}-`));
  const before = new Set(mine());
  process.kill(pid, 'SIGUSR2');
  // Up to a minute: a reading is written at once, but a heap snapshot (GENGATE_PROBE_HEAP_SNAPSHOTS) takes seconds.
  for (let i = 0; i < 3_000; i++) {
    await sleep(20);
    const file = mine().find((f) => !before.has(f));
    if (file && existsSync(join(PROBE_DIR, file))) {
      const text = readFileSync(join(PROBE_DIR, file), 'utf8');
      if (!text.endsWith('}')) continue;
      const probe = JSON.parse(text) as { before: Snapshot; afterFullGc: Snapshot | null };
      const s = probe.before;
      const spaces = Object.values(s.spacesMb);
      const v8Resident = spaces.reduce((a, x) => a + (x?.resident ?? 0), 0);
      return {
        rssMb: s.smapsRollupMb.rss,
        v8ResidentMb: v8Resident,
        youngMb: s.spacesMb['new_space']?.resident ?? 0,
        oldSpaceMb: s.spacesMb['old_space']?.committed ?? 0,
        oldSpaceUsedMb: s.spacesMb['old_space']?.used ?? 0,
        liveHeapMb: probe.afterFullGc ? probe.afterFullGc.memoryUsageMb.heapUsed : null,
        fileBackedMb: s.smapsRollupMb.sharedClean + s.smapsRollupMb.privateClean,
        otherAnonymousMb: Math.max(0, s.smapsRollupMb.anonymous - v8Resident),
        threads: s.threads,
        probe,
      };
    }
  }
  const rss = rssMb(pid);
  return { rssMb: rss, v8ResidentMb: NaN, youngMb: NaN, oldSpaceMb: NaN, oldSpaceUsedMb: NaN, liveHeapMb: null, fileBackedMb: NaN, otherAnonymousMb: NaN, threads: NaN, probe: null };
}

/** How long after a load the settled reading is taken: the host gives heap pages back on its first idle half-second after a busy one (ops/idle-memory-release.ts). */
export const SETTLE_MS = 3_000;

/** A reading at once after a load and one SETTLE_MS later (what a dashboard sampling RSS sees once the load has passed). */
export async function memoryAfterLoad(pid: number): Promise<{ readonly atOnce: MemoryReading; readonly settled: MemoryReading }> {
  const atOnce = await memoryOf(pid);
  await sleep(SETTLE_MS);
  return { atOnce, settled: await memoryOf(pid) };
}
