// Prints the slowest test files of the given vitest JSON reports (their durations, largest first), with
// each file's share of its report's total: where CI's time goes, for the next cut (docs/benchmarks.md).
// Informational: never fails the run (missing or unreadable reports are skipped; the summary counts them).
import { existsSync, readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';

const TOP = Number(process.env['CI_SLOWEST'] ?? 20);
const rows = [];
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) continue;
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    continue;
  }
  const lane = basename(file, '.json');
  const files = (report.testResults ?? []).map((r) => ({ lane, name: relative(process.cwd(), r.name), ms: Math.max(0, (r.endTime ?? 0) - (r.startTime ?? 0)), tests: (r.assertionResults ?? []).length }));
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  console.log(`${lane}: ${files.length} files, ${(total / 1000).toFixed(0)} s of file time`);
  for (const f of files) rows.push({ ...f, share: total > 0 ? f.ms / total : 0 });
}
rows.sort((a, b) => b.ms - a.ms);
for (const r of rows.slice(0, TOP)) {
  console.log(`${(r.ms / 1000).toFixed(1).padStart(7)} s  ${(r.share * 100).toFixed(1).padStart(5)} %  ${r.lane.padEnd(9)} ${r.name} (${r.tests} tests)`);
}
