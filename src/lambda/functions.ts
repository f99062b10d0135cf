/**
 * Every Lambda function of the app, listed once. The entry of `<name>` is `src/lambda/<name>.ts`
 * (its handler, built once per container from `process.env` by its composition root in `src/app/`).
 * `lib/bundling.ts` bundles exactly these entries (the CDK function construct and the bundle-size
 * bench) and the local runtime composes exactly these functions (`src/local/functions.ts`), so a
 * new function is one row here, one entry file and one composition. No imports: `lib/` reads it.
 */
export interface LambdaFunction {
  /** The composition root the entry calls. */
  wiring: string;
  serves: string;
  /** Deployed only with this optional feature configured (the default app does not wire it). */
  deployedWith?: 'channels' | 'audit';
}

export const LAMBDA_FUNCTIONS = {
  authorizer: { wiring: 'src/app/authorizer.ts', serves: 'JWT authorizer (`jwt` auth mode) of REST requests and WebSocket $connect' },
  'rest-read': { wiring: 'src/app/inbox-read.ts', serves: 'GET /notifications, GET /notifications/counts' },
  'rest-write': { wiring: 'src/app/inbox-write.ts', serves: 'POST /notifications/... (read and seen marks, per-item and bulk actions, snooze)' },
  'rest-preferences': { wiring: 'src/app/preferences.ts', serves: 'GET/PUT /preferences, devices, push consent, email address, unsubscribe' },
  fanout: { wiring: 'src/app/fan-out.ts', serves: "one notification type's intake queue (`NOTIFICATION_TYPE`)" },
  'celebrity-promotion': { wiring: 'src/app/promotion.ts', serves: 'the paged pass run when an account enters the celebrity tier' },
  delivery: { wiring: 'src/app/delivery.ts', serves: 'one priority delivery queue (`DELIVERY_MODE=urgent|info`): live pushes over WebSocket' },
  channel: { wiring: 'src/app/channels.ts', serves: 'one channel queue (`CHANNEL=push|email|sms`)', deployedWith: 'channels' },
  'sms-inbound': { wiring: 'src/app/sms.ts', serves: "End User Messaging SMS's inbound topic (SNS): STOP opts the number out", deployedWith: 'channels' },
  'audit-drain': { wiring: 'src/app/audit/drain.ts', serves: 'the audit backlog queue: records the archive could not take yet', deployedWith: 'audit' },
  'ws-connect': { wiring: 'src/app/ws-connect.ts', serves: 'WebSocket $connect (authorized on the `token` query parameter)' },
  'ws-disconnect': { wiring: 'src/app/ws-disconnect.ts', serves: 'WebSocket $disconnect' },
  'ws-default': { wiring: 'src/app/ws-default.ts', serves: 'WebSocket $default (`{"action":"ping"}` -> `{"type":"pong"}`)' },
  'privacy-job': { wiring: 'src/app/privacy-jobs.ts', serves: 'the privacy job queue: erase (bounded, checkpointed steps) and export (to the encrypted export bucket) of one user' },
} as const satisfies Record<string, LambdaFunction>;

export type LambdaFunctionName = keyof typeof LAMBDA_FUNCTIONS;

export const LAMBDA_FUNCTION_NAMES = Object.keys(LAMBDA_FUNCTIONS) as LambdaFunctionName[];
