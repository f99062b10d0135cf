import { defineConfig } from 'vitest/config';

/** `npm run test:chaos`: slow fault and scale tests (500,000-message backlog), not part of `npm test`. */
export default defineConfig({
  test: {
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    include: ['test/chaos/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
