import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the demo inbox page driven in headless Chromium (Debian's `chromium`,
 * never a downloaded browser). Kept apart from `npm test` so that suite needs no browser; the files
 * are `*.spec.ts` so the default config's `test/**\/*.test.ts` never picks them up.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.spec.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
