import { defineConfig } from 'vitest/config';

/** `npm run test:localstack`: the suite against a LocalStack deployment (`npm run deploy:localstack`). */
export default defineConfig({
  test: {
    // The AWS SDK warns once per process on Node 20 (CI's Node); the warning is documented in README.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    include: ['test/localstack/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
