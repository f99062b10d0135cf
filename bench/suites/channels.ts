/**
 * Push and email channels: DynamoDB requests and WCU per push and per email (dedup included), and the
 * push rate of one consumer, against dynalite and the local SNS / SES stand-ins through the real
 * `@aws-sdk/client-sns` and `@aws-sdk/client-sesv2`. The baseline in the same run is the same consumer
 * with no dedup record and no rate counter: the price of "effectively once" and of the digest.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { channelDelivery, channelRepository, type ChannelConsumerConfig } from '../../src/app/channels.js';
import { createParts, documentClient } from '../../src/app/parts.js';
import { RequestMeter } from '../../src/adapters/dynamo/request-meter.js';
import type { ChannelDelivery, ChannelInput } from '../../src/core/channels/channel-delivery.js';
import { deviceIdOf } from '../../src/core/channels/devices.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { notificationId } from '../../src/core/model/ids.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo } from '../../src/local/embedded-dynamo.js';
import { LOCAL_PLATFORM_APPLICATIONS } from '../../src/local/function-configs.js';
import { createRequestListener } from '../../src/local/http/router.js';
import { LocalSesV2, createLocalSesRoute, LOCAL_SES_PATH } from '../../src/local/ses/ses-v2.js';
import { LocalMobilePush, createLocalSnsRoute, LOCAL_SNS_PATH } from '../../src/local/sns/mobile-push.js';
import { round, type BenchResult, type BenchSuite } from '../harness.js';

const TENANT = 'bench';
const USERS = 400;
const BATCH = 10;
const DIGEST_SIZE = 10;

function jobOf(type: string, userId: string, n: number, priority: 'urgent' | 'info'): DeliveryJob {
  return {
    v: 1,
    tenantId: TENANT,
    eventId: `e-${type}-${userId}-${n}`,
    priority,
    notification: { type, createdAt: new Date().toISOString(), actor: { id: 'bob', name: 'Bob' }, title: 'Bob mentioned you', body: 'hey', data: { postId: 'p' } },
    target: { kind: 'recipients', recipients: [{ userId, notificationId: notificationId({ tenantId: TENANT, type, eventId: `e-${type}-${userId}-${n}`, recipient: userId, timeMs: Date.now() }) }] },
  };
}

export const suite: BenchSuite = {
  id: 'channels',
  title: 'Push and email channels: requests, WCU and push rate',
  method: `${USERS} users, each with one APNs device, push consent and a verified email address, in dynalite.
One push consumer (\`ChannelDelivery\`, parallelism 8, the composition of \`src/app/channels.ts\`) takes the
mention jobs in batches of ${BATCH} and publishes through the real \`@aws-sdk/client-sns\` to the local SNS
stand-in; the email consumer sends one mail per user, then a digest of ${DIGEST_SIZE} comments per user in one
batch, through the real \`@aws-sdk/client-sesv2\`. DynamoDB requests and capacity units are counted by
the RequestMeter middleware (exact). Baseline: the same consumer with the dedup record and the rate
counter switched off (what "effectively once" and the digest cost). The push rate is wall clock on this
machine against the local stand-in, so it measures the consumer's own overhead, not APNs or FCM.`,
  async run(): Promise<BenchResult[]> {
    const dataDir = await mkdtemp(join(tmpdir(), 'bench-channels-'));
    const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb') });
    const sns = new LocalMobilePush({ region: LOCAL_REGION, accountId: '000000000000' });
    const ses = new LocalSesV2();
    const routes = [createLocalSnsRoute(sns, { serverHost: '127.0.0.1' }), createLocalSesRoute(ses, { serverHost: '127.0.0.1' })];
    const server = createServer(createRequestListener(() => routes, () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const http = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const logger = new Logger({ serviceName: 'bench-channels', logLevel: 'ERROR' });
    const parts = createParts({ logger, aws: { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, dynamoEndpoint: dynamo.endpoint } });
    const meter = new RequestMeter();
    meter.attach(documentClient(parts));
    const scheduler = { scheduleOnce: async () => 'created' as const };
    const base = {
      graphTable: dynamo.tableNames.graph,
      idempotencyTable: dynamo.tableNames.idempotency,
      inboxTable: dynamo.tableNames.inbox,
      cacheTtlMs: 30_000,
      deliveryJobSecret: 'bench',
      rateLimitPerWindow: 1_000,
      rateLimitWindowMs: 60_000,
      parallelism: 8,
    };
    const pushConfig: ChannelConsumerConfig = { ...base, channel: 'push', channelQueueArn: 'arn:aws:sqs:us-east-1:000000000000:PushDelivery', push: { platformApplications: { apns: LOCAL_PLATFORM_APPLICATIONS.apns }, endpoint: `${http}${LOCAL_SNS_PATH}` } };
    const emailConfig: ChannelConsumerConfig = {
      ...base,
      channel: 'email',
      channelQueueArn: 'arn:aws:sqs:us-east-1:000000000000:EmailDelivery',
      email: { fromAddress: 'n@example.test', endpoint: `${http}${LOCAL_SES_PATH}`, unsubscribeSecret: 'bench', unsubscribeBaseUrl: http },
    };
    try {
      const store = channelRepository(parts, dynamo.tableNames.graph);
      const { SnsPushProvider } = await import('../../src/adapters/sns/sns-push-provider.js');
      const { SNSClient } = await import('@aws-sdk/client-sns');
      const endpoints = new SnsPushProvider(new SNSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: `${http}${LOCAL_SNS_PATH}` }), { apns: LOCAL_PLATFORM_APPLICATIONS.apns });
      for (let i = 0; i < USERS; i += 1) {
        const user = { tenantId: TENANT, userId: `u${i}` };
        const token = `${i}`.padStart(64, 'a');
        const { endpointArn } = await endpoints.findOrCreateEndpoint('apns', token, user);
        await store.putDevice(user, { id: deviceIdOf('apns', token), platform: 'apns', token, endpointArn, createdAt: '', updatedAt: '' }, 20);
        await store.putPushConsent(user, { grantedAt: new Date().toISOString(), version: '1' });
        await store.putEmailAddress(user, `u${i}@example.test`);
      }

      const run = async (delivery: ChannelDelivery, jobs: DeliveryJob[], batch: number) => {
        meter.reset();
        const started = performance.now();
        for (let i = 0; i < jobs.length; i += batch) {
          const inputs: ChannelInput[] = jobs.slice(i, i + batch).map((job, index) => ({ recordId: `r${i + index}`, job }));
          const report = await delivery.deliver(inputs);
          if (report.failedRecordIds.size > 0) throw new Error(`bench batch failed: ${[...report.failedRecordIds].join(', ')}`);
        }
        return { ms: performance.now() - started, totals: meter.snapshot() };
      };
      const noDedup = { claim: async () => true, release: async () => undefined };
      const noRate = { admitMessage: async () => 'counted' as const };
      const withoutSafety = (delivery: ChannelDelivery): ChannelDelivery => Object.assign(Object.create(Object.getPrototypeOf(delivery) as object) as ChannelDelivery, delivery, { deps: { ...(delivery as unknown as { deps: object }).deps, dedup: noDedup, rate: noRate } });

      const push = channelDelivery(parts, pushConfig, scheduler);
      const mentions = (round: number) => Array.from({ length: USERS }, (_, i) => jobOf('mention.created', `u${i}`, round, 'urgent'));
      const firstJobs = mentions(1);
      const pushRun = await run(push, firstJobs, BATCH);
      const pushBaseline = await run(withoutSafety(push), mentions(2), BATCH);
      const publishesBefore = sns.publishes;
      // The same jobs again (an SQS redelivery, a redriven DLQ): dedup lets nothing through.
      const redelivered = await run(push, firstJobs, BATCH);
      const republished = sns.publishes - publishesBefore;

      const email = channelDelivery(parts, emailConfig, scheduler);
      const emailRun = await run(email, Array.from({ length: USERS }, (_, i) => jobOf('comment.created', `u${i}`, 1, 'info')), BATCH);
      const digestJobs = Array.from({ length: USERS / 10 }, (_, i) => Array.from({ length: DIGEST_SIZE }, (_, n) => jobOf('comment.created', `u${i}`, 100 + n, 'info'))).flat();
      const mailsBefore = ses.mailbox().length;
      const digestRun = await run(email, digestJobs, DIGEST_SIZE);
      const digests = ses.mailbox().length - mailsBefore;

      const per = (value: number, count: number) => round(value / count, 2);
      // Published us-east-1 prices (BENCHMARKS.md): SNS mobile push $0.50 per million publishes, SES
      // $0.10 per 1,000 emails, DynamoDB on-demand $0.625 per million WRU and $0.125 per million RRU.
      const dynamoPerMillion = (wcu: number, rcu: number) => wcu * 0.625 + rcu * 0.125;
      const pushDynamo = dynamoPerMillion(pushRun.totals.writeCapacityUnits / USERS, pushRun.totals.readCapacityUnits / USERS);
      const emailDynamo = dynamoPerMillion(emailRun.totals.writeCapacityUnits / USERS, emailRun.totals.readCapacityUnits / USERS);
      const digestDynamo = dynamoPerMillion(digestRun.totals.writeCapacityUnits / digests, digestRun.totals.readCapacityUnits / digests);
      const cost = [
        { name: 'cost.perMillionPushes.usd', value: round(0.5 + pushDynamo, 2), unit: 'USD', note: `SNS $0.50 + DynamoDB $${round(pushDynamo, 2)} (SQS and Lambda not included)` },
        { name: 'cost.perMillionEmails.usd', value: round(100 + emailDynamo, 2), unit: 'USD', note: `SES $100 + DynamoDB $${round(emailDynamo, 2)}` },
        { name: 'cost.perMillionDigestEmails.usd', value: round(100 + digestDynamo, 2), unit: 'USD', note: `digests of ${DIGEST_SIZE}: SES $100 + DynamoDB $${round(digestDynamo, 2)} (= ${DIGEST_SIZE} million notifications)` },
      ];
      return [
        ...cost,
        { name: 'push.requests.perPush', value: per(pushRun.totals.requests, USERS), unit: 'requests', note: `${JSON.stringify(pushRun.totals.byCommand)}` },
        { name: 'push.wcu.perPush', value: per(pushRun.totals.writeCapacityUnits, USERS), unit: 'WCU', note: 'dedup PutItem + rate counter UpdateItem' },
        { name: 'push.rcu.perPush', value: per(pushRun.totals.readCapacityUnits, USERS), unit: 'RCU' },
        { name: 'push.requests.perPush.baseline', value: per(pushBaseline.totals.requests, USERS), unit: 'requests', note: 'no dedup, no rate counter' },
        { name: 'push.wcu.perPush.baseline', value: per(pushBaseline.totals.writeCapacityUnits, USERS), unit: 'WCU', note: 'no dedup, no rate counter' },
        { name: 'push.redelivered.publishes', value: republished, unit: `publishes for ${USERS} redelivered jobs`, note: 'the same jobs again: dedup sends nothing' },
        { name: 'push.rate.oneConsumer', value: round((USERS / pushRun.ms) * 1000, 0), unit: 'pushes/s', note: 'parallelism 8, batches of 10, local SNS stand-in' },
        { name: 'push.redelivered.wcu.perJob', value: per(redelivered.totals.writeCapacityUnits, USERS), unit: 'WCU', note: 'a failed conditional put still costs 1 WCU' },
        { name: 'email.requests.perEmail', value: per(emailRun.totals.requests, USERS), unit: 'requests' },
        { name: 'email.wcu.perEmail', value: per(emailRun.totals.writeCapacityUnits, USERS), unit: 'WCU' },
        { name: 'email.rcu.perEmail', value: per(emailRun.totals.readCapacityUnits, USERS), unit: 'RCU' },
        { name: 'email.digest.emails', value: digests, unit: `emails for ${digestJobs.length} comments` },
        { name: 'email.digest.wcu.perEmail', value: per(digestRun.totals.writeCapacityUnits, digests), unit: 'WCU', note: `${DIGEST_SIZE} dedup claims + 1 counter per digest` },
        { name: 'email.digest.requests.perEmail', value: per(digestRun.totals.requests, digests), unit: 'requests' },
      ];
    } finally {
      parts.destroyClients();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dynamo.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
