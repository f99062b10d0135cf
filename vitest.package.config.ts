import { defineConfig } from 'vitest/config';

/** `npm run test:package`: packs the project, installs it into a front end, a CDK app and a `cdk init` app, and synthesizes both (about 1.5 min of CPU; up to 6 min of wall time on a shared 2-core machine). */
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
