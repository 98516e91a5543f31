import { afterAll, afterEach } from 'vitest';
import { takeViolations } from '../packages/host/test/support/contract-violations.js';

/**
 * Fails the test during which a spawned server's exchange (seen by the contract proxy, see
 * packages/host/test/support/contract-proxy.ts) did not match docs/openapi.yaml; exchanges made in
 * beforeAll hooks fail the first test after them, those of afterAll hooks the file.
 */
function failOnViolations(): void {
  const problems = takeViolations();
  if (problems.length > 0) throw new Error(`exchanges with a spawned server do not match docs/openapi.yaml:\n  - ${problems.join('\n  - ')}`);
}

afterEach(failOnViolations);
afterAll(failOnViolations);
