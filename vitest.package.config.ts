import { defineConfig } from 'vitest/config';

/** `npm run test:package`: packs the project and synthesizes a fresh CDK app that installs the tarball (~1-2 min). */
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
  },
});
