import { defineConfig } from 'vitest/config';

/**
 * The browser tests (`npm run test:browser`): Playwright (playwright-core) driving Debian's Chromium
 * (/usr/bin/chromium, or CHROMIUM_PATH) against the standalone host on a fresh database. Screenshots go
 * to test-results/screenshots/.
 */
// As in vitest.config.ts: the standalone host these tests spawn runs from sources with `--import tsx`, which
// lowers inversify's parameter decorators only with tsconfig.runner.json; vitest's oxc is told the same.
process.env.TSX_TSCONFIG_PATH ??= new URL('./tsconfig.runner.json', import.meta.url).pathname;

export default defineConfig({
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: false } },
  resolve: { conditions: ['@gengate/source'] },
  ssr: { resolve: { conditions: ['@gengate/source'] } },
  test: {
    include: ['packages/dashboard/e2e/**/*.e2e.ts'],
    globalSetup: ['test/vitest-global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
