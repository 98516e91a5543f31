import { defineConfig } from 'vitest/config';

/**
 * The browser tests (`npm run test:browser`): Playwright (playwright-core) driving Debian's Chromium
 * (/usr/bin/chromium, or CHROMIUM_PATH) against the standalone host on a fresh database. Screenshots go
 * to test-results/screenshots/.
 */
export default defineConfig({
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
