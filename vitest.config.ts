import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The AWS SDK warns once per process on Node 20 (CI's Node); the warning is documented in README.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    include: ['test/**/*.test.ts'],
    // LocalStack tests run only through `npm run test:localstack`, chaos tests through `npm run test:chaos`,
    // the packed-tarball test through `npm run test:package`.
    exclude: ['test/localstack/**', 'test/chaos/**', 'test/package/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
