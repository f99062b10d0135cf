/**
 * The channels in the local runtime: the SNS mobile-push and SES v2 stand-ins on the HTTP server,
 * the push and email consumers (the same compositions as on AWS) on their local queues, and the
 * loopback-only dev routes that show what each device and mailbox received:
 *
 * - `GET /_dev/push` -> `{"devices": [{endpointArn, platform, token, enabled, received: [...]}]}`
 * - `POST /_dev/push/invalid-token` `{"token": "..."}` -> the provider now reports the token invalid
 * - `GET /_dev/mail` -> `{"mails": [{to, subject, text, headers, ...}], "stalled": n}`
 * - `POST /_dev/mail/stall` `{"count": n}` -> the next n SendEmail calls are never answered (kill tests)
 * - `GET /_dev/sms` with `Authorization: Bearer <token>` -> `{"phoneNumber", "optedOut", "texts":
 *   [{to, from, body, atMs, keywordResponse?}]}`: the texts to the CALLER's own phone only (the
 *   token's verified `phone_number`; none: `phoneNumber: null`), the last 50; no valid token: 401
 * - `POST /_dev/sms/inbound` `{"from": "+1...", "body": "STOP"}` -> a text from that phone to the
 *   origination number (the simulated phone network): the stand-in acts on a keyword as the service
 *   does, the inbound topic's subscriber (the sms-inbound function) gets it
 */
import { createHmac } from 'node:crypto';
import * as z from 'zod';
import { principalOf, queueConsumer, type AwsCallRecorder } from './aws-calls/call-recorder.js';
import { LOCAL_REGION } from './embedded-dynamo.js';
import type { LocalFunctionSet } from './function-set.js';
import { isLoopbackCaller, type LocalRoute } from './http/router.js';
import type { LocalPipelineQueues } from './pipeline.js';
import { LOCAL_ACCOUNT_ID } from './sqs/local-account.js';
import type { LocalSqsCredentials } from './sqs/credentials.js';
import { DEFAULT_LOCAL_MAX_RECEIVE_COUNT } from './pipeline.js';
import { LOCAL_SES_PATH, LocalSesV2, createLocalSesRoute } from './ses/ses-v2.js';
import { LOCAL_SNS_PATH, LocalMobilePush, createLocalSnsRoute } from './sns/mobile-push.js';
import { LOCAL_SMS_PATH, LocalSmsVoiceV2, createLocalSmsRoute, type LocalSmsOptions } from './sms/sms-voice-v2.js';
import { e164Schema } from '../contract/channel-schemas.js';
import type { TokenVerifier, VerifiedUser } from '../adapters/jwt-verifier.js';

export interface LocalChannels {
  sns: LocalMobilePush;
  ses: LocalSesV2;
  sms: LocalSmsVoiceV2;
  snsEndpoint: string;
  sesEndpoint: string;
  smsEndpoint: string;
  routes: LocalRoute[];
}

/** The unsubscribe key, derived from the runtime's job key (one secret file per DATA_DIR; a different key per purpose). */
export function localUnsubscribeSecret(deliveryJobSecret: string): string {
  return createHmac('sha256', deliveryJobSecret).update('unsubscribe-links').digest('base64url');
}

/** The texts of the caller's phone the demo page shows (its last ones). */
const PHONE_TEXTS_SHOWN = 50;

export function createLocalChannels(options: { http: string; serverHost: string; credentials: LocalSqsCredentials; sms?: LocalSmsOptions; verifier: TokenVerifier }): LocalChannels {
  const sns = new LocalMobilePush({ region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID });
  const ses = new LocalSesV2();
  const sms = new LocalSmsVoiceV2(options.sms);
  const inboundSchema = z.object({ from: e164Schema, body: z.string().min(1).max(1_600) }).strict();
  const invalidTokenSchema = z.object({ token: z.string().min(1).max(4_096) }).strict();
  const stallSchema = z.object({ count: z.number().int().min(1).max(100) }).strict();
  const parseJson = (body: Buffer): unknown => {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
  };
  const devRoute: LocalRoute = {
    async handle(request) {
      const path = request.url.pathname;
      if (!path.startsWith('/_dev/push') && !path.startsWith('/_dev/mail') && !path.startsWith('/_dev/sms')) return undefined;
      // Recordings hold other users' messages: this machine's loopback callers only.
      if (!isLoopbackCaller(request)) return { status: 403, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { code: 'forbidden', message: 'dev routes answer loopback callers only' } }) };
      const json = (status: number, body: unknown) => ({ status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body: JSON.stringify(body) });
      // The recordings are other users' messages: each GET answers those of its token's user only.
      const callerOf = async (): Promise<VerifiedUser | undefined> => {
        const authorization = request.headers.authorization;
        const token = typeof authorization === 'string' && authorization.startsWith('Bearer ') ? authorization.slice('Bearer '.length).trim() : '';
        try {
          return await options.verifier.verify(token);
        } catch {
          return undefined;
        }
      };
      const unauthorized = (what: string) => json(401, { error: { code: 'unauthorized', message: `a valid token is required: the route answers ${what}` } });
      if (request.method === 'GET' && path === '/_dev/push') {
        // Whose devices: the endpoints whose CustomUserData names the token's user (as the push function writes it).
        const caller = await callerOf();
        if (!caller) return unauthorized("the pushes of its own user's devices");
        const owner = JSON.stringify({ tenantId: caller.tenantId, userId: caller.userId });
        return json(200, { devices: sns.devices().filter((device) => device.customUserData === owner) });
      }
      if (request.method === 'GET' && path === '/_dev/mail') {
        // Whose mail: the verified address of the caller's token (none: no mail); `stalled` is a count, no content.
        const caller = await callerOf();
        if (!caller) return unauthorized('the mail of its own verified address');
        const address = caller.email?.toLowerCase();
        return json(200, { mails: address === undefined ? [] : ses.mailbox().filter((mail) => mail.to.some((to) => to.toLowerCase() === address)), stalled: ses.stalled });
      }
      if (request.method === 'GET' && path === '/_dev/sms') {
        // Whose phone: the verified number of the caller's token, never a number in the request.
        const caller = await callerOf();
        if (!caller) return unauthorized('the texts of its own phone');
        const phoneNumber = caller.phoneNumber ?? null;
        return json(200, { phoneNumber, optedOut: phoneNumber !== null && sms.isOptedOut(phoneNumber), texts: phoneNumber === null ? [] : sms.textsTo(phoneNumber).slice(-PHONE_TEXTS_SHOWN) });
      }
      if (request.method === 'POST' && path === '/_dev/sms/inbound') {
        const parsed = inboundSchema.safeParse(parseJson(request.body));
        if (!parsed.success) return json(400, { error: { code: 'validation_error', message: 'body must be {"from": E.164 number, "body": text}' } });
        return json(200, { inbound: await sms.inbound(parsed.data.from, parsed.data.body) });
      }
      if (request.method === 'POST' && path === '/_dev/mail/stall') {
        const parsed = stallSchema.safeParse(parseJson(request.body));
        if (!parsed.success) return json(400, { error: { code: 'validation_error', message: 'body must be {"count": integer 1..100}' } });
        ses.stall(parsed.data.count);
        return json(204, undefined);
      }
      if (request.method === 'POST' && path === '/_dev/push/invalid-token') {
        let body: unknown;
        try {
          body = JSON.parse(request.body.toString('utf8'));
        } catch {
          return json(400, { error: { code: 'invalid_json', message: 'body is not JSON' } });
        }
        const parsed = invalidTokenSchema.safeParse(body);
        if (!parsed.success) return json(400, { error: { code: 'validation_error', message: 'body must be {"token": string}' } });
        sns.markTokenInvalid(parsed.data.token);
        return json(204, undefined);
      }
      return json(404, { error: { code: 'not_found', message: `no dev route ${request.method} ${path}` } });
    },
  };
  return {
    sns,
    ses,
    snsEndpoint: `${options.http}${LOCAL_SNS_PATH}`,
    sesEndpoint: `${options.http}${LOCAL_SES_PATH}`,
    sms,
    smsEndpoint: `${options.http}${LOCAL_SMS_PATH}`,
    routes: [
      createLocalSnsRoute(sns, { credentials: options.credentials, serverHost: options.serverHost }),
      createLocalSesRoute(ses, { credentials: options.credentials, serverHost: options.serverHost }),
      createLocalSmsRoute(sms, { credentials: options.credentials, serverHost: options.serverHost }),
      devRoute,
    ],
  };
}

/** The push and email consumers on their queues (`CHANNEL` on AWS). */
export function attachChannelConsumers(queues: LocalPipelineQueues, functions: LocalFunctionSet, recorder?: AwsCallRecorder): void {
  if (!functions.channel) return;
  for (const channel of ['push', 'email', 'sms'] as const) {
    const queue = queues[channel];
    const handler = functions.channel(channel, queue.maxReceiveCount ?? DEFAULT_LOCAL_MAX_RECEIVE_COUNT);
    queue.attachConsumer(queueConsumer(recorder, principalOf('channel', channel), queue.name, handler));
  }
  // Post alerts: the push function consumes the alerts queue too (a second event source, as on AWS).
  const alerts = functions.channel('push', queues.alerts.maxReceiveCount ?? DEFAULT_LOCAL_MAX_RECEIVE_COUNT);
  queues.alerts.attachConsumer(queueConsumer(recorder, principalOf('channel', 'push'), queues.alerts.name, alerts));
}
