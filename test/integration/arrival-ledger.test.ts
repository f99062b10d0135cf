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
    expect(first).toEqual({ arrivalMs: T0, intakeMs: T0, fresh: true, retracted: false });
    expect(again).toEqual({ arrivalMs: T0, intakeMs: T0, fresh: false, retracted: false });
    expect(firstCost).toMatchObject({ requests: 1, writeCapacityUnits: 1, byCommand: { PutItemCommand: 1 } });
  });

  it('stamps each type of a shared producer event id separately, and restamps once the record expired', async () => {
    await ledger.stampArrival(key('shared', 'mention.created'), T0, expiry(T0));
    expect((await ledger.stampArrival(key('shared', 'comment.created'), T0 + 1, expiry(T0 + 1))).arrivalMs).toBe(T0 + 1);
    await ledger.stampArrival(key('short'), T0, Math.floor(T0 / 1000) + 1);
    expect(await ledger.stampArrival(key('short'), T0 + 10_000, expiry(T0 + 10_000))).toEqual({ arrivalMs: T0 + 10_000, intakeMs: T0 + 10_000, fresh: true, retracted: false });
  });

  it('restamps a stamp only while it is the one an attempt saw and no retraction marked it', async () => {
    // Prepare
    await ledger.stampArrival(key('died'), T0, expiry(T0));

    // Act
    const moved = await ledger.restampArrival(key('died'), T0, T0 + 500, expiry(T0 + 500));
    const raced = await ledger.restampArrival(key('died'), T0, T0 + 900, expiry(T0 + 900));

    // Assess
    expect(moved).toEqual({ arrivalMs: T0 + 500, intakeMs: T0, fresh: true, retracted: false });
    expect(raced).toEqual({ arrivalMs: T0 + 500, intakeMs: T0, fresh: false, retracted: false });
  });

  it('keeps the intake time and the fan-out mode with the first stamp; a restamp moves the stamp only', async () => {
    // Act
    const first = await ledger.stampEvent(key('post'), { arrivalMs: T0, intakeMs: T0 - 40, mode: 'celebrity' }, expiry(T0));
    const retry = await ledger.stampEvent(key('post'), { arrivalMs: T0 + 50, intakeMs: T0 + 10, mode: 'ordinary' }, expiry(T0 + 50));
    const moved = await ledger.restampArrival(key('post'), T0, T0 + 70, expiry(T0 + 70));

    // Assess
    expect(first).toEqual({ arrivalMs: T0, intakeMs: T0 - 40, mode: 'celebrity', fresh: true, retracted: false });
    expect(retry).toEqual({ arrivalMs: T0, intakeMs: T0 - 40, mode: 'celebrity', fresh: false, retracted: false });
    expect(moved).toEqual({ arrivalMs: T0 + 70, intakeMs: T0 - 40, mode: 'celebrity', fresh: true, retracted: false });
  });

  it('a retraction keeps the stamp (or stamps first) and marks it: the event then finds it retracted, and no restamp moves it', async () => {
    // Act
    const before = await ledger.stampRetracted(key('early'), T0, expiry(T0));
    const event = await ledger.stampArrival(key('early'), T0 + 100, expiry(T0 + 100));
    const restamp = await ledger.restampArrival(key('early'), T0, T0 + 200, expiry(T0 + 200));
    await ledger.stampArrival(key('late'), T0, expiry(T0));
    const after = await ledger.stampRetracted(key('late'), T0 + 300, expiry(T0 + 300));

    // Assess
    expect(before).toBe(T0);
    expect(event).toEqual({ arrivalMs: T0, intakeMs: T0, fresh: false, retracted: true });
    expect(restamp).toEqual({ arrivalMs: T0, intakeMs: T0, fresh: false, retracted: true });
    expect(after).toBe(T0);
  });

  it('a retraction after the stamp expired (TTL deletion lags) stamps the event anew: a later send of it stays retracted', async () => {
    // Prepare: the event's record expires at T0 + 1 s and is not deleted yet.
    await ledger.stampArrival(key('expired'), T0, Math.floor(T0 / 1000) + 1);
    const later = T0 + 5_000;

    // Act
    const stamp = await ledger.stampRetracted(key('expired'), later, expiry(later));
    const resent = await ledger.stampArrival(key('expired'), later + 100, expiry(later + 100));

    // Assess
    expect(stamp).toBe(later);
    expect(resent).toEqual({ arrivalMs: later, intakeMs: later, fresh: false, retracted: true });
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
