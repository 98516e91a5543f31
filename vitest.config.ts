import { defineConfig } from 'vitest/config';

export default defineConfig({
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
