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
import type { ChannelDelivery, ChannelInput, ChannelJob } from '../../src/core/channels/channel-delivery.js';
import { deviceIdOf } from '../../src/core/channels/devices.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { notificationId } from '../../src/core/model/ids.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo } from '../../src/local/embedded-dynamo.js';
import { LOCAL_PLATFORM_APPLICATIONS } from '../../src/local/function-configs.js';
import { createRequestListener } from '../../src/local/http/router.js';
import { LocalSesV2, createLocalSesRoute, LOCAL_SES_PATH } from '../../src/local/ses/ses-v2.js';
import { LocalMobilePush, createLocalSnsRoute, LOCAL_SNS_PATH } from '../../src/local/sns/mobile-push.js';
import { round, type BenchResult, type BenchSuite } from '../harness.js';
import { AlertSubscriptionRepository } from '../../src/adapters/dynamo/alert-subscriptions.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { ALERT_DEVICES_PER_JOB, ALERT_SUBSCRIBERS_PER_JOB, alertPage } from '../../src/core/channels/post-alerts.js';
import { MAX_DEVICES_PER_USER } from '../../src/core/channels/devices.js';
import type { AlertJob } from '../../src/core/jobs/alert-job.js';
import { ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import { batchPutAll } from '../../src/adapters/dynamo/batch.js';
import { keys } from '../../src/core/model/keys.js';
import { markAt } from '../../src/core/model/read-state.js';
import { LocalSmsVoiceV2, createLocalSmsRoute, LOCAL_SMS_PATH, LOCAL_SMS_ORIGINATION_IDENTITY } from '../../src/local/sms/sms-voice-v2.js';
import { PreferencesRepository } from '../../src/adapters/dynamo/preferences-repository.js';
import { DEFAULT_PREFERENCES } from '../../src/core/preferences/preferences.js';

/**
 * End User Messaging SMS per message part to a US number (10DLC), ASSUMED (not read from the price
 * list by this bench; prices vary by country and origination type and carriers add a fee): the
 * DynamoDB part of a text is measured, the provider part is this input.
 */
const SMS_PRICE_PER_PART_USD = 0.00581;

const TENANT = 'bench';
const USERS = 400;
const BATCH = 10;
const DIGEST_SIZE = 10;
const BIG_INBOX = 2_000;
const ALERT_SUBSCRIBER_COUNTS = [1_000, 10_000, 100_000];
/** The drain-time table's audience: 10 million alert subscribers, one device each. */
const DRAIN_DEVICES = 10_000_000;
/** FCM: about 600,000 messages per minute per project (one platform application each). */
const FCM_PER_APP_PER_SECOND = 10_000;
/** SNS Publish: 30,000 per second in us-east-1 by default (9,000 in us-west-2 and eu-west-1; adjustable). */
const SNS_PUBLISH_PER_SECOND = 30_000;

/** Drain time of DRAIN_DEVICES pushes at K platform applications: the lowest of K x FCM's quota and SNS's (default, then raised to match); the push consumers needed at the measured rate. */
function drainTable(pushRatePerConsumer: number): BenchResult[] {
  return [1, 4, 16].flatMap((k) => {
    const providers = k * FCM_PER_APP_PER_SECOND;
    const atDefault = Math.min(providers, SNS_PUBLISH_PER_SECOND);
    const minutes = (rate: number) => round(DRAIN_DEVICES / rate / 60, 1);
    return [
      { name: `alerts.drain10M.k${k}.minutes`, value: minutes(atDefault), unit: 'minutes', note: `${atDefault.toLocaleString('en-US')} pushes/s = min(K x 10,000 FCM, 30,000 SNS Publish default); ${Math.ceil(atDefault / pushRatePerConsumer)} push consumers at the measured ${Math.round(pushRatePerConsumer)} pushes/s each` },
      { name: `alerts.drain10M.k${k}.snsRaised.minutes`, value: minutes(providers), unit: 'minutes', note: `SNS Publish quota raised to ${providers.toLocaleString('en-US')}/s: FCM-bound; ${Math.ceil(providers / pushRatePerConsumer)} push consumers (maxConcurrency)` },
    ];
  });
}
const BIG_EXCEPTIONS = 300;

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
machine against the local stand-in, so it measures the consumer's own overhead, not APNs or FCM.
SMS: one mention text per user (mentions by SMS switched on, opted in) through the real
\`@aws-sdk/client-pinpoint-sms-voice-v2\` to the local End User Messaging SMS stand-in; its DynamoDB part is
measured, the provider's price per part is an assumed input (US 10DLC, carrier fees extra).
Escalation: ${USERS} \`mention.created\` escalation jobs reach the email consumer due (the fan-out's delayed
message); half the users had read everything (one read-all each) before, half had not. Then one
escalation each for a user with an empty inbox and one with ${BIG_INBOX} items and ${BIG_EXCEPTIONS} exceptions.
Post alerts: accounts with ${ALERT_SUBSCRIBER_COUNTS.join(' / ')} alert subscribers (current followers) paged by the push
consumer's own code (\`alertPage\`: Query of the ALERTS partition, consistent BatchGetItem of the follow pairs). The
drain time of ${DRAIN_DEVICES.toLocaleString('en-US')} alert pushes at K = 1, 4, 16 platform applications takes the provider and AWS limits
(FCM about 600,000 messages per minute per project; SNS Publish 30,000 per second by default in us-east-1)
and the push rate of one consumer measured above; cost per million alerts from the measured requests and
published prices (SNS $0.50 per million, DynamoDB on-demand, SQS $0.40 and Lambda $0.20 per million requests).`,
  async run(): Promise<BenchResult[]> {
    const dataDir = await mkdtemp(join(tmpdir(), 'bench-channels-'));
    const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb') });
    const sns = new LocalMobilePush({ region: LOCAL_REGION, accountId: '000000000000' });
    const ses = new LocalSesV2();
    const smsStandIn = new LocalSmsVoiceV2();
    const routes = [createLocalSnsRoute(sns, { serverHost: '127.0.0.1' }), createLocalSesRoute(ses, { serverHost: '127.0.0.1' }), createLocalSmsRoute(smsStandIn, { serverHost: '127.0.0.1' })];
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
      const preferencesStore = new PreferencesRepository(documentClient(parts), dynamo.tableNames.graph);
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
        await store.putSmsOptIn(user, { phoneNumber: `+1415555${String(i).padStart(4, '0')}`, optedInAt: new Date().toISOString(), version: '1' });
        // Mentions by text switched on (off by default for the type): written before any consumer caches the preferences.
        await preferencesStore.putPreferences(TENANT, user.userId, { ...DEFAULT_PREFERENCES, mutedTypes: [], liveDelivery: {}, channels: { 'mention.created': { sms: true } }, updatedAt: new Date().toISOString() });
      }

      const run = async (delivery: ChannelDelivery, jobs: ChannelJob[], batch: number) => {
        meter.reset();
        const started = performance.now();
        for (let i = 0; i < jobs.length; i += batch) {
          const inputs: ChannelInput[] = jobs.slice(i, i + batch).map((job, index) => ({ recordId: `r${i + index}`, job }));
          const report = await delivery.deliver(inputs);
          if (report.failedRecordIds.size > 0) throw new Error(`bench batch failed: ${[...report.failedRecordIds].join(', ')}`);
        }
        return { ms: performance.now() - started, totals: meter.snapshot() };
      };
      const noDedup = { claim: async () => true, release: async () => undefined, claimSending: async () => 'claimed' as const, markSent: async () => undefined };
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

      // SMS: one text per user through the real client to the stand-in (mentions by text switched on at setup).
      const smsConfig: ChannelConsumerConfig = { ...base, channel: 'sms', channelQueueArn: 'arn:aws:sqs:us-east-1:000000000000:SmsDelivery', sms: { originationIdentity: LOCAL_SMS_ORIGINATION_IDENTITY, limits: { perUserPerDay: 10, perDay: 1_000_000 }, endpoint: `${http}${LOCAL_SMS_PATH}` } };
      const smsDelivery = channelDelivery(parts, smsConfig, scheduler);
      const smsRun = await run(smsDelivery, mentions(5), BATCH);
      const texts = smsStandIn.outbox().length;
      if (texts !== USERS) throw new Error(`sms bench sent ${texts} of ${USERS} texts`);

      // Escalation at fire time (mention.created -> email when unseen): half the users read everything
      // (one read-all each) before it fires, half did not; one more user has a big inbox (items and exceptions).
      const escalation = channelDelivery(parts, { ...emailConfig, escalation: { inboxTable: dynamo.tableNames.inbox, readMarksTable: dynamo.tableNames.readMarks } }, scheduler);
      const readState = new ReadStateRepository(documentClient(parts), dynamo.tableNames.readMarks);
      const escalationJobs = (round: number, users: number) => Array.from({ length: users }, (_, i): ChannelJob => ({ ...jobOf('mention.created', `u${i}`, round, 'urgent'), escalation: { dueAtMs: Date.now(), when: 'unseen' } }));
      const jobsToCheck = escalationJobs(300, USERS);
      const readAllAt = Date.now() + 5;
      await new Promise((resolve) => setTimeout(resolve, 10));
      for (let i = 0; i < USERS / 2; i += 1) await readState.advanceReadMark({ tenantId: TENANT, userId: `u${i}` }, markAt(readAllAt), new Date(readAllAt).toISOString());
      const mailsBeforeEscalation = ses.mailbox().length;
      const escalationRun = await run(escalation, jobsToCheck, BATCH);
      const escalationMails = ses.mailbox().length - mailsBeforeEscalation;
      // The same check for a user with an empty inbox and one with BIG_INBOX items and BIG_EXCEPTIONS exceptions: one request each.
      const big = { tenantId: TENANT, userId: 'big' };
      await batchPutAll(documentClient(parts), dynamo.tableNames.inbox, Array.from({ length: BIG_INBOX }, (_, n) => ({ ...keys.inboxItem(TENANT, 'big', notificationId({ tenantId: TENANT, type: 'mention.created', eventId: `old-${n}`, recipient: 'big', timeMs: Date.now() - 86_400_000 + n })), type: 'mention.created' })));
      const exceptionIds = Array.from({ length: BIG_EXCEPTIONS }, (_, n) => notificationId({ tenantId: TENANT, type: 'mention.created', eventId: `old-${n}`, recipient: 'big', timeMs: Date.now() - 86_400_000 + n }));
      await readState.putExceptions(big, new Map(exceptionIds.map((id) => [id, { type: 'mention.created', basis: 0, read: true, seen: true, archived: false, deleted: false, expiresAt: Math.floor(Date.now() / 1000) + 86_400 }])));
      const oneCheck = async (userId: string) => run(escalation, [{ ...jobOf('mention.created', userId, 400, 'urgent'), escalation: { dueAtMs: Date.now(), when: 'unseen' } }], 1);
      const emptyInbox = await oneCheck('small');
      const bigInbox = await oneCheck('big');

      // Post alerts: an account with N alert subscribers (each a current follower), paged by the real
      // adapters the push consumer uses (Query of the ALERTS partition, consistent BatchGetItem of the follow pairs).
      const graphTable = dynamo.tableNames.graph;
      const alertDeps = { subscriptions: new AlertSubscriptionRepository(documentClient(parts), graphTable), graph: new FollowGraphRepository(documentClient(parts), graphTable), queue: { enqueue: async () => undefined } };
      const alertRuns: { subscribers: number; jobs: number; largest: number; requests: number; rcu: number }[] = [];
      for (const subscribers of ALERT_SUBSCRIBER_COUNTS) {
        const actor = `star${subscribers}`;
        const ids = Array.from({ length: subscribers }, (_, i) => `f${String(i).padStart(6, '0')}`);
        const followedAt = new Date().toISOString();
        await batchPutAll(documentClient(parts), graphTable, ids.flatMap((id) => [{ ...keys.alertSubscriber(TENANT, actor, id), subscribedAt: followedAt }, { ...keys.follower(TENANT, actor, id), followedAt }]), { parallelism: 8 });
        meter.reset();
        let job: AlertJob | undefined = { v: 1, tenantId: TENANT, eventId: `post-${actor}`, priority: 'info', notification: { type: 'post.published', createdAt: followedAt, actor: { id: actor }, title: 't', body: 'b', data: {} }, alerts: { actorId: actor, arrivalMs: Date.now(), mode: 'celebrity', page: 0 } };
        let jobs = 0;
        let largest = 0;
        let pushed = 0;
        while (job) {
          const page = await alertPage(alertDeps, 'r', job);
          jobs += 1;
          largest = Math.max(largest, page.inputs.length);
          pushed += page.inputs.length;
          job = page.next;
        }
        if (pushed !== subscribers) throw new Error(`alert pages reached ${pushed} of ${subscribers} subscribers`);
        const totals = meter.snapshot();
        alertRuns.push({ subscribers, jobs, largest, requests: totals.requests, rcu: totals.readCapacityUnits });
      }
      const perAlert = alertRuns[alertRuns.length - 1]!;
      const pagingRcuPerAlert = perAlert.rcu / perAlert.subscribers;
      const pushRate = (USERS / pushRun.ms) * 1000;

      const per = (value: number, count: number) => round(value / count, 2);
      // Published us-east-1 prices (BENCHMARKS.md): SNS mobile push $0.50 per million publishes, SES
      // $0.10 per 1,000 emails, DynamoDB on-demand $0.625 per million WRU and $0.125 per million RRU.
      const dynamoPerMillion = (wcu: number, rcu: number) => wcu * 0.625 + rcu * 0.125;
      const pushDynamo = dynamoPerMillion(pushRun.totals.writeCapacityUnits / USERS, pushRun.totals.readCapacityUnits / USERS);
      const emailDynamo = dynamoPerMillion(emailRun.totals.writeCapacityUnits / USERS, emailRun.totals.readCapacityUnits / USERS);
      const digestDynamo = dynamoPerMillion(digestRun.totals.writeCapacityUnits / digests, digestRun.totals.readCapacityUnits / digests);
      // Alerts: a push (SNS + its DynamoDB, measured above) + the paging reads + the SQS messages of the jobs (send, receive, delete) + Lambda requests.
      const jobsPerMillion = (perAlert.jobs / perAlert.subscribers) * 1_000_000;
      const alertCost = 0.5 + pushDynamo + pagingRcuPerAlert * 0.125 + (jobsPerMillion * 3 * 0.4) / 1_000_000 + (jobsPerMillion * 0.2) / 1_000_000;
      const drain = drainTable(pushRate);
      const smsDynamo = dynamoPerMillion(smsRun.totals.writeCapacityUnits / USERS, smsRun.totals.readCapacityUnits / USERS);
      const cost = [
        { name: 'cost.perMillionAlerts.usd', value: round(alertCost, 2), unit: 'USD', note: `SNS $0.50 + push DynamoDB $${round(pushDynamo, 2)} + paging $${round(pagingRcuPerAlert * 0.125, 2)} (${round(pagingRcuPerAlert, 2)} RCU/alert) + SQS and Lambda requests of ${Math.round(jobsPerMillion)} jobs $${round((jobsPerMillion * 1.4) / 1_000_000, 3)} (Lambda GB-seconds not included)` },
        { name: 'cost.perMillionPushes.usd', value: round(0.5 + pushDynamo, 2), unit: 'USD', note: `SNS $0.50 + DynamoDB $${round(pushDynamo, 2)} (SQS and Lambda not included)` },
        { name: 'cost.perMillionEmails.usd', value: round(100 + emailDynamo, 2), unit: 'USD', note: `SES $100 + DynamoDB $${round(emailDynamo, 2)}` },
        { name: 'cost.perMillionTexts.usd', value: round(SMS_PRICE_PER_PART_USD * 1_000_000 + smsDynamo, 2), unit: 'USD', note: `one-part texts: End User Messaging SMS $${SMS_PRICE_PER_PART_USD * 1_000_000} (ASSUMED US 10DLC price per part, carrier fees extra) + DynamoDB $${round(smsDynamo, 2)} (measured)` },
        { name: 'cost.perMillionDigestEmails.usd', value: round(100 + digestDynamo, 2), unit: 'USD', note: `digests of ${DIGEST_SIZE}: SES $100 + DynamoDB $${round(digestDynamo, 2)} (= ${DIGEST_SIZE} million notifications)` },
      ];
      return [
        ...cost,
        { name: 'push.requests.perPush', value: per(pushRun.totals.requests, USERS), unit: 'requests', note: `${JSON.stringify(pushRun.totals.byCommand)}` },
        { name: 'push.wcu.perPush', value: per(pushRun.totals.writeCapacityUnits, USERS), unit: 'WCU', note: 'dedup PutItem + rate counter UpdateItem + the delivery-trace record (BatchWriteItem, audit trail)' },
        { name: 'push.rcu.perPush', value: per(pushRun.totals.readCapacityUnits, USERS), unit: 'RCU' },
        { name: 'push.requests.perPush.baseline', value: per(pushBaseline.totals.requests, USERS), unit: 'requests', note: 'no dedup, no rate counter' },
        { name: 'push.wcu.perPush.baseline', value: per(pushBaseline.totals.writeCapacityUnits, USERS), unit: 'WCU', note: 'no dedup, no rate counter' },
        { name: 'push.redelivered.publishes', value: republished, unit: `publishes for ${USERS} redelivered jobs`, note: 'the same jobs again: dedup sends nothing' },
        { name: 'push.rate.oneConsumer', value: round((USERS / pushRun.ms) * 1000, 0), unit: 'pushes/s', note: 'parallelism 8, batches of 10, local SNS stand-in' },
        { name: 'push.redelivered.wcu.perJob', value: per(redelivered.totals.writeCapacityUnits, USERS), unit: 'WCU', note: 'a failed conditional put still costs 1 WCU' },
        { name: 'sms.requests.perText', value: per(smsRun.totals.requests, USERS), unit: 'requests', note: `opt-out GetItem, dedup, rate counter, both spend guards, trace: ${JSON.stringify(smsRun.totals.byCommand)}` },
        { name: 'sms.wcu.perText', value: per(smsRun.totals.writeCapacityUnits, USERS), unit: 'WCU', note: 'dedup PutItem + rate counter + user and global spend guards (UpdateItem) + trace' },
        { name: 'sms.rcu.perText', value: per(smsRun.totals.readCapacityUnits, USERS), unit: 'RCU', note: 'preferences + channel state + the opt-out record (consistent)' },
        { name: 'email.requests.perEmail', value: per(emailRun.totals.requests, USERS), unit: 'requests' },
        { name: 'email.wcu.perEmail', value: per(emailRun.totals.writeCapacityUnits, USERS), unit: 'WCU' },
        { name: 'email.rcu.perEmail', value: per(emailRun.totals.readCapacityUnits, USERS), unit: 'RCU' },
        { name: 'email.digest.emails', value: digests, unit: `emails for ${digestJobs.length} comments` },
        { name: 'email.digest.wcu.perEmail', value: per(digestRun.totals.writeCapacityUnits, digests), unit: 'WCU', note: `${DIGEST_SIZE} dedup claims + 1 counter per digest` },
        { name: 'email.digest.requests.perEmail', value: per(digestRun.totals.requests, digests), unit: 'requests' },
        ...alertRuns.flatMap((run) => [
          { name: `alerts.jobs.${run.subscribers}`, value: run.jobs, unit: 'jobs', note: `${run.subscribers} alert subscribers: one job (one invocation) per page of ${ALERT_SUBSCRIBERS_PER_JOB}; ${run.requests} DynamoDB requests, ${round(run.rcu, 1)} RCU in all` },
          { name: `alerts.largestJob.${run.subscribers}`, value: run.largest, unit: 'subscribers', note: `<= ${run.largest * MAX_DEVICES_PER_USER} devices (${MAX_DEVICES_PER_USER} per user at most): under ${ALERT_DEVICES_PER_JOB}` },
        ]),
        ...drain,
        { name: 'escalation.emails', value: escalationMails, unit: `emails for ${USERS} escalations`, note: `${USERS / 2} users read all before it fired (skipped), ${USERS / 2} unseen (sent)` },
        { name: 'escalation.requests.perNotification', value: per(escalationRun.totals.requests, USERS), unit: 'requests', note: `half skipped, half sent; ${JSON.stringify(escalationRun.totals.byCommand)}` },
        { name: 'escalation.rcu.perNotification', value: per(escalationRun.totals.readCapacityUnits, USERS), unit: 'RCU', note: 'the fire-time check (marks, exception, retraction record: eventually consistent) + preferences + channel state' },
        { name: 'escalation.wcu.perNotification', value: per(escalationRun.totals.writeCapacityUnits, USERS), unit: 'WCU', note: 'a sent one: dedup claim + rate counter; a skipped one: trace only' },
        { name: 'escalation.check.requests.emptyInbox', value: emptyInbox.totals.byCommand.BatchGetItemCommand ?? 0, unit: 'BatchGetItem', note: `one escalation of a user with an empty inbox: preferences + the check (${emptyInbox.totals.requests} requests, ${round(emptyInbox.totals.readCapacityUnits, 2)} RCU in all; nothing to send: no email address)` },
        { name: 'escalation.check.requests.bigInbox', value: bigInbox.totals.byCommand.BatchGetItemCommand ?? 0, unit: 'BatchGetItem', note: `the same for a user with ${BIG_INBOX} items and ${BIG_EXCEPTIONS} exceptions (${bigInbox.totals.requests} requests, ${round(bigInbox.totals.readCapacityUnits, 2)} RCU in all): the inbox is never read` },
        { name: 'escalation.cancel.writes', value: 0, unit: 'writes per pending escalation', note: 'read-all, archive, delete and retraction write nothing for the escalations pending: the check at fire time decides' },
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
