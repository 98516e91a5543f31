// Prints the slowest test files of the given vitest logs (the default reporter's line per file: its time
// with its hooks, which the JSON report leaves out), largest first, with each file's share of its lane's
// file time and the lane's own import/tests breakdown: where CI's time goes, for the next cut
// (docs/benchmarks.md, "CI time"). Informational: never fails the run (a missing log is skipped).
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

const TOP = Number(process.env['CI_SLOWEST'] ?? 20);
const FILE_LINE = /^ ([✓×❯↓]) (\S+\.(?:test|e2e)\.tsx?) \(([^)]*)\)\s+(\d+)ms/;
const rows = [];
for (const log of process.argv.slice(2)) {
  if (!existsSync(log)) continue;
  const lane = basename(log, '.log');
  const lines = readFileSync(log, 'utf8').replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const files = [];
  for (const line of lines) {
    const m = FILE_LINE.exec(line);
    if (m) files.push({ lane, mark: m[1], name: m[2], tests: m[3], ms: Number(m[4]) });
  }
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  const duration = lines.find((l) => /^\s+Duration\s/.test(l))?.trim() ?? 'no Duration line';
  console.log(`${lane}: ${files.length} files, ${(total / 1000).toFixed(0)} s of file time; ${duration}`);
  for (const f of files) rows.push({ ...f, share: total > 0 ? f.ms / total : 0 });
}
rows.sort((a, b) => b.ms - a.ms);
for (const r of rows.slice(0, TOP)) {
  console.log(`${(r.ms / 1000).toFixed(1).padStart(7)} s ${(r.share * 100).toFixed(1).padStart(5)} %  ${r.lane.padEnd(9)} ${r.mark} ${r.name} (${r.tests})`);
}
