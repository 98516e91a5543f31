import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { databaseTestFiles } from './test/database-test-files.js';

const ALL = ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'];

/**
 * GENGATE_TESTS=database runs only the files that use the test PostgreSQL server (createTestDatabase,
 * found from their imports: test/database-test-files.ts); CI runs those a second time on the machine's
 * PostgreSQL, the rest once. Unset: every file.
 */
function include(): string[] {
  const only = process.env['GENGATE_TESTS'];
  if (only === undefined || only === '') return ALL;
  if (only === 'database') return databaseTestFiles(fileURLToPath(new URL('.', import.meta.url)));
  throw new Error(`GENGATE_TESTS=${only}: expected "database" or nothing`);
}

export default defineConfig({
  resolve: { conditions: ['@gengate/source'] },
  ssr: { resolve: { conditions: ['@gengate/source'] } },
  test: {
    include: include(),
    globalSetup: ['test/vitest-global-setup.ts'],
    setupFiles: ['test/vitest-contract-setup.ts'],
    // Most files spend their time waiting (spawned servers, PostgreSQL, webhooks), not computing: run at
    // least two at once even on two cores (vitest's default there is one). Each file has its own database.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Bounds for a hung test, not speed targets: files running side by side (and CI's other phases)
    // slow each other's spawned servers down.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
