import { defineConfig } from 'vitest/config';

/** `npm run test:package`: packs the project and synthesizes a fresh CDK app that installs the tarball (~1-2 min). */
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
