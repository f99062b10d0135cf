/**
 * The event pipeline end to end: the real EventBridge SDK publishes to the in-process local
 * runtime; the local queues run the fan-out handlers; the REST API shows the result.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryJobSchema, type DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { keys } from '../../src/core/model/keys.js';
import type { Notification } from '../../src/core/model/notification.js';
import type { UserRef } from '../../src/core/model/user.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { loadLocalSqsCredentials, type LocalQueue } from '../../src/local/sqs/index.js';
import { aFollow, aMention, aPost, eventBridgeBody, putEntry } from '../support/events.js';
import { call } from '../support/http.js';
import { pollUntil } from '../support/poll-until.js';

const CELEBRITY_THRESHOLD = 3;
const FEED_SHARDS = 4;
const poll = { attempts: 100, intervalMs: 50 };

let runtime: LocalRuntime;
let dataDir: string;
let events: EventBridgeClient;
const jobs: DeliveryJob[] = [];

const user = (userId: string): UserRef => ({ tenantId: 'acme', userId });

async function inboxOf(userId: string): Promise<Notification[]> {
  const token = await runtime.secrets.issueToken(user(userId));
  const answer = await call(runtime.endpoints.http, 'GET', '/notifications?limit=100', { token });
  expect(answer.status).toBe(200);
  return (answer.body as { items: Notification[] }).items;
}

async function publish(...entries: PutEventsRequestEntry[]) {
  return events.send(new PutEventsCommand({ Entries: entries }));
}

/** Every message of the intake queues handled (deleted or moved to a DLQ). */
async function intakeDrained(): Promise<void> {
  const intake = [...Object.values(runtime.queues.intake), ...Object.values(runtime.queues.urgentIntake)];
  await pollUntil(() => intake.every((queue) => queue.peek().length === 0) && runtime.queues.promotion.peek().length === 0, poll, 'intake queues drained');
}

async function profileOf(userId: string) {
  const output = await runtime.documentClient.send(new GetCommand({ TableName: runtime.dynamo.tableNames.graph, Key: keys.profile('acme', userId) }));
  return output.Item;
}

async function partitionItems(pk: string) {
  const output = await runtime.documentClient.send(
    new QueryCommand({ TableName: runtime.dynamo.tableNames.inbox, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }),
  );
  return output.Items ?? [];
}

const jobsOf = (eventId: string) => jobs.filter((job) => job.eventId === eventId);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pipeline-e2e-'));
  runtime = await startLocalRuntime({
    ...localSettingsFromEnv({}),
    port: 0,
    wsPort: 0,
    dataDir,
    celebrityThreshold: CELEBRITY_THRESHOLD,
    feedShards: FEED_SHARDS,
    queueVisibilityTimeoutMs: 200,
    maxReceiveCount: 2,
  });
  events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const record = (queue: LocalQueue) => queue.onSend((message) => jobs.push(deliveryJobSchema.parse(JSON.parse(message.body))));
  record(runtime.queues.urgent);
  record(runtime.queues.info);
});

afterAll(async () => {
  events?.destroy();
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('When a producer publishes with the EventBridge SDK', () => {
  it('shows a mention in every recipient inbox and queues one urgent job for them', async () => {
    // Prepare
    const mention = aMention({ recipients: ['m-alice', 'm-carol'] });

    // Act
    const answer = await publish(putEntry('mention.created', mention));

    // Assess
    expect(answer.FailedEntryCount).toBe(0);
    expect(answer.Entries?.[0]?.EventId).toMatch(/.+/);
    for (const recipient of ['m-alice', 'm-carol']) {
      const items = await pollUntil(async () => {
        const inbox = await inboxOf(recipient);
        return inbox.length > 0 ? inbox : undefined;
      }, poll, `${recipient} sees the mention`);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ type: 'mention.created', title: 'Bob mentioned you', body: 'hey @alice', read: false, actor: { id: 'bob' } });
    }
    const [job] = jobsOf(mention.id);
    expect(jobsOf(mention.id)).toHaveLength(1);
    expect(job?.priority).toBe('urgent');
    expect(job?.target).toMatchObject({ kind: 'recipients' });
    expect(job?.target.kind === 'recipients' && job.target.recipients.map((recipient) => recipient.userId).sort()).toEqual(['m-alice', 'm-carol']);
  });

  it('honours a priority override: an info type marked urgent goes to the urgent queue', async () => {
    const comment = { ...aMention({ priority: 'urgent', recipients: ['m-dave'] }), data: { postId: 'p', commentId: 'c', excerpt: 'nice' } };
    await publish(putEntry('comment.created', comment));
    await pollUntil(() => jobsOf(comment.id).length === 1, poll, 'job queued');
    expect(jobsOf(comment.id)[0]?.priority).toBe('urgent');
  });
});

describe('When an ordinary account publishes a post', () => {
  it('lands in every follower inbox, not in the inbox of a user who followed afterwards', async () => {
    // Prepare: two followers (below the threshold of 3), a minute ago
    const followedAt = new Date(Date.now() - 60_000).toISOString();
    await publish(...['o-f1', 'o-f2'].map((follower) => putEntry('follow.created', aFollow(follower, 'o-author', { time: followedAt }))));
    await pollUntil(async () => (await profileOf('o-author'))?.followerCount === 2, poll, 'two followers counted');
    const post = aPost('o-author', { time: new Date(Date.now() - 5_000).toISOString() });

    // Act
    await publish(putEntry('post.published', post));
    await intakeDrained();
    expect((await profileOf('o-author'))?.tier ?? 'ordinary').toBe('ordinary');
    await publish(putEntry('follow.created', aFollow('o-late', 'o-author')));
    await intakeDrained();

    // Assess
    for (const follower of ['o-f1', 'o-f2']) {
      expect((await inboxOf(follower)).map((item) => item.body)).toEqual([`a post by o-author`]);
    }
    expect(await inboxOf('o-late')).toEqual([]);
    expect(jobsOf(post.id)).toHaveLength(1);
    expect(jobsOf(post.id)[0]?.priority).toBe('info');
    // The followee is notified of each follow.
    expect((await inboxOf('o-author')).filter((item) => item.type === 'follow.created')).toHaveLength(3);
  });
});

describe('When a celebrity account publishes a post', () => {
  it('is written once per feed shard and every follower sees it merged; a later follower does not', async () => {
    // Prepare: reaching the threshold promotes the account; the background pass lists it for each follower
    const followers = ['c-f1', 'c-f2', 'c-f3'];
    const followedAt = new Date(Date.now() - 60_000).toISOString();
    await publish(...followers.map((follower) => putEntry('follow.created', aFollow(follower, 'c-star', { time: followedAt }))));
    await pollUntil(async () => (await profileOf('c-star'))?.tier === 'celebrity', poll, 'c-star promoted');
    await intakeDrained();
    for (const follower of followers) {
      const celebs = await runtime.documentClient.send(
        new GetCommand({ TableName: runtime.dynamo.tableNames.graph, Key: keys.followingCeleb('acme', follower, 'c-star') }),
      );
      expect(celebs.Item?.followedAt).toEqual(expect.any(String));
    }
    const post = aPost('c-star', { time: new Date(Date.now() - 5_000).toISOString() });

    // Act
    await publish(putEntry('post.published', post));
    await intakeDrained();
    await publish(putEntry('follow.created', aFollow('c-late', 'c-star')));
    await intakeDrained();

    // Assess: one item per shard, none in follower partitions
    for (let shard = 0; shard < FEED_SHARDS; shard += 1) {
      expect(await partitionItems(keys.feedShardPartition('acme', 'c-star', shard))).toHaveLength(1);
    }
    for (const follower of followers) {
      expect(await partitionItems(keys.inboxItem('acme', follower, '').pk)).toEqual([]);
      expect((await inboxOf(follower)).map((item) => item.body)).toEqual(['a post by c-star']);
    }
    expect(await inboxOf('c-late')).toEqual([]);
    // The fan-out's own job (no shard); the delivery consumer may already have split it into one job per subscriber shard.
    const fanOutJobs = jobsOf(post.id).filter((job) => !(job.target.kind === 'onlineFollowers' && job.target.shard !== undefined));
    expect(fanOutJobs).toEqual([expect.objectContaining({ priority: 'info', target: expect.objectContaining({ kind: 'onlineFollowers', actorId: 'c-star' }) })]);
  });
});

describe('When the same event is published three times', () => {
  it('gives one inbox item per recipient and one set of delivery jobs', async () => {
    const mention = aMention({ recipients: ['d-alice', 'd-carol'] });

    for (let i = 0; i < 3; i += 1) await publish(putEntry('mention.created', mention));
    await intakeDrained();

    expect(await inboxOf('d-alice')).toHaveLength(1);
    expect(await inboxOf('d-carol')).toHaveLength(1);
    expect(jobsOf(mention.id)).toHaveLength(1);
  });
});

describe('When an entry has a bad envelope or bad data', () => {
  it('answers that entry with the field named and writes nothing for it; the valid entry goes through', async () => {
    const valid = aMention({ recipients: ['v-alice'] });
    const badData = aMention({ recipients: ['v-bob'], data: { excerpt: 'no post id' } });
    const badEnvelope = { ...aMention({ recipients: ['v-bob'] }), tenantId: 't'.repeat(257) };
    const unknownField = { ...aMention({ recipients: ['v-bob'] }), recipent: ['typo'] };

    const answer = await publish(
      putEntry('mention.created', valid),
      putEntry('mention.created', badData),
      putEntry('mention.created', badEnvelope),
      putEntry('mention.created', unknownField),
      putEntry('nope.created', aMention()),
    );

    expect(answer.FailedEntryCount).toBe(4);
    const [ok, data, envelope, unknown, type] = answer.Entries ?? [];
    expect(ok?.EventId).toMatch(/.+/);
    expect(data).toMatchObject({ ErrorCode: 'InvalidArgument', ErrorMessage: expect.stringContaining('detail.data.postId') });
    expect(envelope).toMatchObject({ ErrorCode: 'InvalidArgument', ErrorMessage: expect.stringContaining('detail.tenantId') });
    expect(unknown?.ErrorMessage).toContain('recipent');
    expect(type?.ErrorMessage).toContain('detail-type');
    await intakeDrained();
    expect(await inboxOf('v-alice')).toHaveLength(1);
    expect(await inboxOf('v-bob')).toEqual([]);
  });
});

describe('When a poison record arrives in a batch', () => {
  it('moves it to the DLQ after maxReceiveCount while its neighbours succeed', async () => {
    // Prepare: bypass PutEvents validation, as a bad event reaching the queue on AWS would
    // The local SQS endpoint requires the runtime's own SigV4 credentials (kept beside the queue journals).
    const sqs = new SQSClient({ endpoint: runtime.endpoints.http, region: LOCAL_REGION, credentials: loadLocalSqsCredentials(join(dataDir, 'queues')) });
    const intake = runtime.queues.intake['mention.created']!;
    const good = [aMention({ recipients: ['p-alice'] }), aMention({ recipients: ['p-carol'] })];
    const poison = eventBridgeBody('mention.created', { ...aMention({ recipients: ['p-bob'] }), data: { postId: 'p' } });
    // The DLQ is shared with the file's earlier cases (a duplicate publish received twice while its
    // first copy was still in progress is dead-lettered there under load): only this case's messages count.
    const earlier = new Set(intake.deadLetterQueue!.peek().map((message) => message.messageId));
    const deadNow = () => intake.deadLetterQueue!.peek().filter((message) => !earlier.has(message.messageId));

    // Act
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: intake.url,
        Entries: [
          { Id: 'good-1', MessageBody: eventBridgeBody('mention.created', good[0]) },
          { Id: 'poison', MessageBody: poison },
          { Id: 'good-2', MessageBody: eventBridgeBody('mention.created', good[1]) },
        ],
      }),
    );
    sqs.destroy();

    // Assess
    expect(sent.Successful).toHaveLength(3);
    const dead = await pollUntil(() => (deadNow().length > 0 ? deadNow() : undefined), poll, 'poison in DLQ');
    expect(dead.map((message) => message.body)).toEqual([poison]);
    expect(intake.peek()).toEqual([]);
    expect(await inboxOf('p-alice')).toHaveLength(1);
    expect(await inboxOf('p-carol')).toHaveLength(1);
    expect(await inboxOf('p-bob')).toEqual([]);
  });
});
