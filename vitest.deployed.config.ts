import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:deployed`: the core end-to-end cases through the deployed esbuild bundles. The
 * script synthesizes them first (`npm run synth:local`, offline) into `cdk.out`; LOCAL_FUNCTIONS
 * makes every local runtime these files start in-process load the bundles instead of the sources
 * (docs/local-runtime.md#run-what-is-deployed). Not recorded for the least-privilege check (that is
 * the source mode's, in `npm test`).
 */
const functionsDir = resolve(process.env.LOCAL_FUNCTIONS ?? 'cdk.out');

export default defineConfig({
  test: {
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOCAL_FUNCTIONS: functionsDir },
    include: [
      // The run itself: the runtimes load that cdk.out's bundles, and a broken bundle fails the start.
      'test/deployed/**/*.test.ts',
      // publish through the real EventBridge SDK -> intake -> fan-out -> inbox -> delivery -> WebSocket
      'test/e2e/event-pipeline.test.ts',
      'test/e2e/websocket.test.ts',
      // read, read-all, seen-all, the cursor and the authorizer over REST; attacker tokens
      'test/e2e/rest-api.test.ts',
      'test/e2e/security.test.ts',
      // archive, snooze (its comeback through the snooze key and role), retraction, bulk and the other inbox actions
      'test/e2e/inbox-actions.test.ts',
      'test/e2e/preferences-api.test.ts',
      'test/e2e/schedules-send-at.test.ts',
      'test/e2e/forged-delivery-job.test.ts',
      // push and email through the local SNS and SES
      'test/e2e/channels.test.ts',
      // the erase job
      'test/e2e/erase-user.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // The bundles (cdk.out's asset.<hash>/index.mjs, and the broken copies of test/deployed/) load with
    // Node's own ESM loader, as on Lambda, not through Vite's transform.
    server: { deps: { external: [/\/asset\.[0-9a-f]{64}\/index\.mjs/] } },
  },
});
