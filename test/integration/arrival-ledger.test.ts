import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoArrivalLedger } from '../../src/adapters/dynamo/arrival-ledger.js';
import { DynamoRecentPostsLog } from '../../src/adapters/dynamo/recent-posts-log.js';
import type { LoggedPost } from '../../src/core/ports/fan-out.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { T0 } from '../support/fixtures.js';

let db: TestDynamo;
let ledger: DynamoArrivalLedger;
const key = (eventId: string, type = 'mention.created') => ({ tenantId: 'acme', type, eventId });
const expiry = (ms: number) => Math.floor(ms / 1000) + 90 * 86_400;

beforeAll(async () => {
  db = await startTestDynamo();
  ledger = new DynamoArrivalLedger(db.client, db.dynamo.tableNames.idempotency);
});
afterAll(async () => db?.close());

describe('DynamoArrivalLedger', () => {
  it('keeps the first stamp: a retry or duplicate publish gets it back, in one PutItem the first time', async () => {
    // Act
    db.meter.reset();
    const first = await ledger.stampArrival(key('e1'), T0, expiry(T0));
    const firstCost = db.meter.snapshot();
    const again = await ledger.stampArrival(key('e1'), T0 + 5_000, expiry(T0 + 5_000));

    // Assess
    expect(first).toBe(T0);
    expect(again).toBe(T0);
    expect(firstCost).toMatchObject({ requests: 1, writeCapacityUnits: 1, byCommand: { PutItemCommand: 1 } });
  });

  it('stamps each type of a shared producer event id separately, and restamps once the record expired', async () => {
    await ledger.stampArrival(key('shared', 'mention.created'), T0, expiry(T0));
    expect(await ledger.stampArrival(key('shared', 'comment.created'), T0 + 1, expiry(T0 + 1))).toBe(T0 + 1);
    await ledger.stampArrival(key('short'), T0, Math.floor(T0 / 1000) + 1);
    expect(await ledger.stampArrival(key('short'), T0 + 10_000, expiry(T0 + 10_000))).toBe(T0 + 10_000);
  });
});

describe('DynamoRecentPostsLog', () => {
  it('returns the posts that arrived at or after a time, oldest first, once each, without expired ones', async () => {
    // Prepare
    const log = new DynamoRecentPostsLog(db.client, db.dynamo.tableNames.inbox);
    const post = (eventId: string, arrivalMs: number, expiresAt = expiry(arrivalMs)): LoggedPost => ({
      eventId,
      type: 'post.published',
      priority: 'info',
      arrivalMs,
      expiresAt,
      notification: { type: 'post.published', createdAt: new Date(T0).toISOString(), actor: { id: 'author' }, title: 't', body: 'b', data: { postId: eventId, title: 'b' } },
    });
    for (const logged of [post('p1', T0), post('p2', T0 + 10), post('p2', T0 + 10), post('gone', T0 + 20, Math.floor(T0 / 1000)), post('p3', T0 + 30)]) {
      await log.recordPost('acme', 'author', logged);
    }

    // Act
    const from = await log.listPostsFrom('acme', 'author', T0 + 10, T0 + 60_000);

    // Assess
    expect(from.map((logged) => logged.eventId)).toEqual(['p2', 'p3']);
    expect(from[0]).toEqual(post('p2', T0 + 10));
  });
});
