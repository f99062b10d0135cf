/**
 * Live delivery of a celebrity post in bounded jobs over dynalite: split per subscriber shard,
 * one page per job with its next page enqueued first, one page job per invocation, and retries
 * that push no connection twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchPutAll } from '../../src/adapters/dynamo/batch.js';
import { ConnectionRepository } from '../../src/adapters/dynamo/connection-repository.js';
import { DynamoDeliveryLedger } from '../../src/adapters/dynamo/delivery-ledger.js';
import { deliveryJobSchema } from '../../src/core/jobs/delivery-job.js';
import { keys } from '../../src/core/model/keys.js';
import { LiveDelivery } from '../../src/core/live/live-delivery.js';
import { CountingPusher, MemoryJobQueue, runDeliveryFleet } from '../../bench/celebrity-delivery-sim.js';
import { anOnlineFollowersJob } from '../support/delivery-fixtures.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { onlineSubscriberShard } from '../../src/core/live/online-followers.js';

let db: TestDynamo;

beforeAll(async () => {
  db = await startTestDynamo();
});
afterAll(async () => db.close());

/** `count` online subscriptions of `actorId`, one user and connection each, as $connect writes them. */
async function seedSubscribers(tenantId: string, actorId: string, count: number): Promise<string[]> {
  const connectionIds = Array.from({ length: count }, (_, i) => `${actorId}-c${i}`);
  const expiresAt = Math.floor(Date.now() / 1000) + 3_600;
  await batchPutAll(
    db.client,
    db.dynamo.tableNames.connections,
    connectionIds.map((connectionId, i) => ({ ...keys.onlineSubscription(tenantId, actorId, onlineSubscriberShard(connectionId), connectionId), userId: `fan-${i}`, expiresAt })),
  );
  return connectionIds;
}

function deliveryWith(queue: MemoryJobQueue, pusher: CountingPusher, connectionsPerJob: number): LiveDelivery {
  const directory = new ConnectionRepository(db.client, db.dynamo.tableNames.connections);
  const ledger = new DynamoDeliveryLedger(db.client, db.dynamo.tableNames.idempotency);
  return new LiveDelivery({ directory, ledger, pusher, isDigestible: () => false, celebrityJobs: { subscribers: directory, steps: ledger, queue, connectionsPerJob } });
}

describe('A celebrity post with 1,050 online subscribers and pages of 100', () => {
  it('is pushed once to every connection, in shard and page jobs of at most 100 connections per invocation', async () => {
    // Prepare
    const connectionIds = await seedSubscribers('live', 'star-a', 1_050);
    const queue = new MemoryJobQueue();
    const pusher = new CountingPusher();
    await queue.enqueue([anOnlineFollowersJob('live', 'star-a')]);

    // Act
    const run = await runDeliveryFleet(deliveryWith(queue, pusher, 100), queue, { concurrency: 4, batchSize: 10 });

    // Assess
    expect(pusher.pushes.size).toBe(connectionIds.length);
    expect([...pusher.pushes.values()].every((count) => count === 1)).toBe(true);
    expect(run.maxConnectionsPerInvocation).toBeLessThanOrEqual(100);
    expect(run.redeliveries).toBe(0);
    // Root + 8 shard jobs + one per further page (plus put-backs of page jobs that shared a batch).
    expect(queue.enqueued).toBeGreaterThanOrEqual(1 + 8 + Math.ceil(1_050 / 100) - 8);
  });

  it('after a failed push, redelivers only that record: no connection is pushed twice and no page job is enqueued twice', async () => {
    // Prepare
    const connectionIds = await seedSubscribers('live', 'star-b', 1_050);
    const queue = new MemoryJobQueue();
    const pusher = new CountingPusher();
    for (const connectionId of connectionIds.filter((_, i) => i % 97 === 0)) pusher.failOnce.add(connectionId);
    const root = anOnlineFollowersJob('live', 'star-b');
    await queue.enqueue([root, root]);
    const seen: string[] = [];
    const recording = { enqueue: async (jobs: Parameters<MemoryJobQueue['enqueue']>[0]) => {
      for (const job of jobs) if (job.target.kind === 'onlineFollowers') seen.push(`${job.target.shard}:${job.target.after ?? ''}`);
      await queue.enqueue(jobs);
    } };
    const directory = new ConnectionRepository(db.client, db.dynamo.tableNames.connections);
    const ledger = new DynamoDeliveryLedger(db.client, db.dynamo.tableNames.idempotency);
    const delivery = new LiveDelivery({ directory, ledger, pusher, isDigestible: () => false, celebrityJobs: { subscribers: directory, steps: ledger, queue: recording, connectionsPerJob: 100 } });

    // Act: the root job delivered twice, and every failed record redelivered
    const run = await runDeliveryFleet(delivery, queue, { concurrency: 3, batchSize: 1 });

    // Assess
    expect(run.redeliveries).toBeGreaterThan(0);
    expect(pusher.pushes.size).toBe(connectionIds.length);
    expect([...pusher.pushes.values()].every((count) => count === 1)).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    for (const job of queue.pending) expect(deliveryJobSchema.parse(job)).toBeDefined();
  });
});
