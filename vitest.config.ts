import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { databaseTestFiles, externalShare } from './test/database-test-files.js';

const ALL = ['test/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'];

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * Which files run (test/database-test-files.ts finds the files that use the test PostgreSQL server from
 * their imports). Unset: every file. `database`: only those. CI's two lanes split the suite so that every
 * file runs once: `external-share` (every other database file, on the machine's PostgreSQL) and
 * `embedded-share` (every other file, on the embedded server).
 */
function selection(): { readonly include: string[]; readonly exclude: string[] } {
  const only = process.env['GENGATE_TESTS'];
  if (only === undefined || only === '') return { include: ALL, exclude: [] };
  if (only === 'database') return { include: databaseTestFiles(ROOT), exclude: [] };
  if (only === 'external-share') return { include: externalShare(ROOT), exclude: [] };
  if (only === 'embedded-share') return { include: ALL, exclude: externalShare(ROOT) };
  throw new Error(`GENGATE_TESTS=${only}: expected "database", "external-share", "embedded-share" or nothing`);
}
const { include, exclude } = selection();

// Processes the tests spawn with `--import tsx` (the CLI from sources, helpers) inherit this: tsx then applies
// legacy decorators to every file (see tsconfig.runner.json).
process.env.TSX_TSCONFIG_PATH ??= new URL('./tsconfig.runner.json', import.meta.url).pathname;

export default defineConfig({
  // inversify's @inject on constructor parameters is a legacy (experimentalDecorators) decorator: vite 8
  // transforms with oxc, which lowers it only when told (a test file outside a package tsconfig's `include`
  // gets no tsconfig options). Metadata is not emitted: every parameter names its token.
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: false } },
  resolve: { conditions: ['@gengate/source'] },
  ssr: { resolve: { conditions: ['@gengate/source'] } },
  test: {
    include,
    exclude: [...configDefaults.exclude, ...exclude],
    globalSetup: ['test/vitest-global-setup.ts'],
    setupFiles: ['test/vitest-contract-setup.ts'],
    // GENGATE_TEST_WORKERS=2 runs two files at once (each file has its own database); unset, vitest's default
    // (one file at a time on two cores), which CI keeps until the timing-sensitive files are event-based.
    ...(process.env['GENGATE_TEST_WORKERS'] ? { maxWorkers: Number(process.env['GENGATE_TEST_WORKERS']) } : {}),
    // Bounds for a hung test, not speed targets: files running side by side (and CI's other phases)
    // slow each other's spawned servers down.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
