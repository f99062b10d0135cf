import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// Every local runtime the system tests start records its functions' AWS calls here; the
// least-privilege check (its own project, run after the others) evaluates them (docs/least-privilege.md).
process.env.RECORD_AWS_CALLS ??= resolve('.local', 'aws-calls');

export default defineConfig({
  test: {
    globalSetup: ['test/support/aws-calls-global-setup.ts'],
    // The AWS SDK warns once per process on Node 20 (CI's Node); the warning is documented in README.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default (cores - 1) runs one file at a time on CI's 2 cores; most files wait on
    // sockets and timers, so two at a time halves the wall time (measured: 364 s -> 203 s).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        // Pure unit files (no servers, no module mocks, no global state) share their workers' module
        // graph instead of a fresh fork per file: the SDK, zod and CDK imports load once per worker.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        // LocalStack tests run only through `npm run test:localstack`, chaos tests through `npm run test:chaos`,
        // the packed-tarball test through `npm run test:package`.
        test: {
          name: 'system',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', 'test/localstack/**', 'test/chaos/**', 'test/package/**', 'test/least-privilege/**', 'test/deployed/**', 'node_modules/**'],
          setupFiles: ['test/support/aws-calls-setup.ts'],
        },
      },
      {
        extends: true,
        // After every other project (groupOrder): it evaluates the AWS calls the system tests recorded in this run.
        test: { name: 'least-privilege', include: ['test/least-privilege/**/*.test.ts'], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
