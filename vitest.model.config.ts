import { defineConfig } from 'vitest/config';

/**
 * `npm run test:model`: the model suites (test/model, fast-check against a reference model) with their
 * long run counts (MODEL_RUNS=long, see test/support/model-runs.ts); `npm test` runs the same files
 * with their short counts. Replay a failure with FC_SEED (and FC_PATH) from its report.
 */
export default defineConfig({
  test: {
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', MODEL_RUNS: 'long' },
    include: ['test/model/**/*.test.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
