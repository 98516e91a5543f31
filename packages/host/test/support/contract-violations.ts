/**
 * Problems the contract proxy found in exchanges with spawned servers. The proxy runs in the test
 * process but outside any test's call stack, so it records here and the hook in
 * test/vitest-contract-setup.ts fails the test (afterEach) or the file (afterAll) that caused them.
 */
const found: string[] = [];

export function recordViolation(problem: string): void {
  found.push(problem);
}

/** Returns and forgets everything recorded so far. */
export function takeViolations(): string[] {
  return found.splice(0, found.length);
}
