import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the demo inbox page driven in headless Chromium (Debian's `chromium`,
 * never a downloaded browser). Kept apart from `npm test` so that suite needs no browser; the files
 * are `*.spec.ts` so the default config's `test/**\/*.test.ts` never picks them up.
 */
export default defineConfig({
  test: {
    // The AWS SDK warns once per process on Node 20 (CI's Node); the warning is documented in README.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    include: ['test/browser/**/*.spec.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
