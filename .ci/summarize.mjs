// Adds up vitest JSON reports and prints, as the very last line, "N passed, M failed".
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    passed += report.numPassedTests;
    // A file that failed outside any test (a hook, an import) counts as one failure of its own.
    const brokenFiles = (report.testResults ?? []).filter(
      (r) => r.status === 'failed' && !(r.assertionResults ?? []).some((a) => a.status === 'failed'),
    ).length;
    failed += report.numFailedTests + brokenFiles;
    console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numFailedTestSuites ?? 0} failed files`);
    // Name what failed here, at the end of the log, where a truncated view of it still shows it.
    for (const r of report.testResults ?? []) {
      const failedTests = (r.assertionResults ?? []).filter((a) => a.status === 'failed');
      if (r.status === 'failed' && failedTests.length === 0) console.log(`  FAILED FILE ${r.name}: ${String(r.message ?? '').split('\n').slice(0, 3).join(' | ')}`);
      for (const a of failedTests) console.log(`  FAILED ${r.name} > ${a.fullName}: ${String((a.failureMessages ?? [])[0] ?? '').split('\n').slice(0, 3).join(' | ').slice(0, 400)}`);
    }
  } catch (err) {
    console.log(`${file}: unreadable (${err.message})`);
    failed += 1;
  }
}
if (process.argv.length <= 2) failed += 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
