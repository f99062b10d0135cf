/**
 * How the local runtime runs each Lambda function of the table (`src/lambda/functions.ts`): the same
 * composition the function's entry calls on AWS, given the local runtime's one `Parts` and typed
 * configs instead of `process.env`. Keyed by the table, so a function added there does not compile
 * until the local runtime runs it too.
 */
import { composeAuthorizer } from '../app/authorizer.js';
import { composeChannelConsumer } from '../app/channels.js';
import { composeAuditDrain } from '../app/audit/drain.js';
import { composeDelivery } from '../app/delivery.js';
import { composeFanOut } from '../app/fan-out.js';
import { composeInboxRead } from '../app/inbox-read.js';
import { composeInboxWrite } from '../app/inbox-write.js';
import { composePreferences } from '../app/preferences.js';
import { composePrivacyJob } from '../app/privacy-jobs.js';
import { composePromotion } from '../app/promotion.js';
import { composeSmsInbound } from '../app/sms.js';
import { composeWsConnect } from '../app/ws-connect.js';
import { composeWsDefault } from '../app/ws-default.js';
import { composeWsDisconnect } from '../app/ws-disconnect.js';
import type { LambdaFunctionName } from '../lambda/functions.js';

export const LOCAL_FUNCTIONS = {
  authorizer: composeAuthorizer,
  'rest-read': composeInboxRead,
  'rest-write': composeInboxWrite,
  'rest-preferences': composePreferences,
  fanout: composeFanOut,
  'celebrity-promotion': composePromotion,
  delivery: composeDelivery,
  channel: composeChannelConsumer,
  'audit-drain': composeAuditDrain,
  'ws-connect': composeWsConnect,
  'ws-disconnect': composeWsDisconnect,
  'ws-default': composeWsDefault,
  'privacy-job': composePrivacyJob,
  'sms-inbound': composeSmsInbound,
} as const satisfies Record<LambdaFunctionName, (...args: never[]) => unknown>;
