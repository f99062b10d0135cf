import { defineConfig } from 'vitest/config';

/** `npm run test:localstack`: the suite against a LocalStack deployment (`npm run deploy:localstack`). */
export default defineConfig({
  test: {
    include: ['test/localstack/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
