import { defineConfig } from 'vitest/config';

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
    include: ['test/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    globalSetup: ['test/vitest-global-setup.ts'],
    setupFiles: ['test/vitest-contract-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
