import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // Linux USER_HZ

/** A /proc stat file (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/stat`): the command's name and the fields after it. */
function readStat(path: string): { comm: string; fields: string[] } | null {
  try {
    const stat = readFileSync(path, 'utf8');
    return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return null;
  }
}

/** The fields of /proc/<pid>/stat after the command's name (field 3 onwards: [0] state, [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime). */
function statFields(pid: number): string[] | null {
  return readStat(`/proc/${pid}/stat`)?.fields ?? null;
}

/** CPU time (user + system) of a process so far, in microseconds, from /proc/<pid>/stat. */
export function cpuMicros(pid: number): number {
  const fields = statFields(pid);
  if (!fields) throw new Error(`no process ${pid}`);
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1_000_000;
}

/**
 * CPU time (user + system) of a process's V8 background threads so far (`V8Worker`: the optimizing
 * compilers and the parallel and concurrent parts of garbage collection), in microseconds, from
 * /proc/<pid>/task/<tid>/stat. Their share of a load's CPU says whether the process was still compiling.
 */
export function v8ThreadsCpuMicros(pid: number): number {
  let ticks = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    // null when the thread ended between the listing and the read
    const stat = readStat(`/proc/${pid}/task/${tid}/stat`);
    if (stat?.comm.startsWith('V8Worker')) ticks += Number(stat.fields[11]) + Number(stat.fields[12]);
  }
  return (ticks / TICKS_PER_SECOND) * 1_000_000;
}

/** The CPU a process spent over `run` (a load), per request answered: in all, and on V8's background threads. */
export async function perRequestCpu<R extends { readonly requests: number }>(pid: number, run: () => Promise<R>): Promise<R & { cpuMicrosPerRequest: number; v8ThreadsMicrosPerRequest: number }> {
  const [before, v8Before] = [cpuMicros(pid), v8ThreadsCpuMicros(pid)];
  const r = await run();
  const n = Math.max(1, r.requests);
  return { ...r, cpuMicrosPerRequest: (cpuMicros(pid) - before) / n, v8ThreadsMicrosPerRequest: (v8ThreadsCpuMicros(pid) - v8Before) / n };
}

/**
 * CPU time of a PostgreSQL server running on this machine, in µs: its postmaster's own and that of its
 * processes that ended (cutime, cstime: a backend's time is added there when it exits), plus every live
 * child's (backends, WAL writer, checkpointer...). Null when `postmasterPid` is not a process here.
 */
export function serverCpuMicros(postmasterPid: number): number | null {
  const own = statFields(postmasterPid);
  if (!own) return null;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (f && Number(f[1]) === postmasterPid) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks / TICKS_PER_SECOND) * 1_000_000;
}

/** The postmaster of a PostgreSQL backend (`select pg_backend_pid()`), when both are processes of this machine. */
export function localPostmasterOf(backendPid: number): number | null {
  const comm = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return null;
    }
  };
  const f = statFields(backendPid);
  const parent = f ? Number(f[1]) : null;
  return parent !== null && comm(backendPid) === 'postgres' && comm(parent) === 'postgres' ? parent : null;
}

/** Resident memory of a process, in MB, from /proc/<pid>/status. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export function percentile(samples: readonly number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}
