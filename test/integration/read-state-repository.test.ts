/** The ReadMarks adapter on dynalite: the marks item (versions, stale read-alls, archive snapshot), exceptions by range, their cost. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import { convertSingleReads } from '../../src/adapters/dynamo/read-state-migration.js';
import { keys } from '../../src/core/model/keys.js';
import { isRead, markAt, type ItemException } from '../../src/core/model/read-state.js';
import type { UserRef } from '../../src/core/model/user.js';
import { notificationsEverySecond, SECOND, T0 } from '../support/fixtures.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let db: TestDynamo;
let readState: ReadStateRepository;
let userCounter = 0;
const freshUser = (): UserRef => ({ tenantId: 'acme', userId: `reader-${(userCounter += 1)}` });
const iso = (ms: number) => new Date(ms).toISOString();
const EXPIRES = Math.floor(T0 / 1000) + 90 * 86_400;
const exception = (fields: Partial<ItemException> = {}): ItemException => ({ type: 'mention.created', basis: 0, read: true, seen: true, archived: false, deleted: false, expiresAt: EXPIRES, ...fields });
const marksOf = async (user: UserRef) => (await readState.readWindow(user, undefined, 0)).state;

beforeAll(async () => {
  db = await startTestDynamo();
  readState = new ReadStateRepository(db.client, db.dynamo.tableNames.readMarks);
});
afterAll(async () => db.close());
beforeEach(() => db.meter.reset());

describe('readWindow', () => {
  it('a user who never read anything has no marks and no exceptions, in one query', async () => {
    // Act
    const { state, exceptionsFrom } = await readState.readWindow(freshUser(), undefined, 50);

    // Assess
    expect(state).toMatchObject({ readMark: null, readAt: null, seenMark: null, seenAt: null, version: 0, readVersion: 0, staleReadAlls: [] });
    expect(state.exceptions.size).toBe(0);
    expect(exceptionsFrom).toBeUndefined();
    expect(db.meter.snapshot().byCommand).toEqual({ QueryCommand: 1 });
  });

  it('the marks and the newest exceptions in one query; below a cursor, the marks and a query of that range', async () => {
    // Prepare
    const user = freshUser();
    const ids = notificationsEverySecond(10, T0).map((item) => item.id);
    await readState.putExceptions(user, new Map(ids.map((id) => [id, exception()])));
    await readState.advanceReadMark(user, markAt(T0), iso(T0));
    db.meter.reset();

    // Act
    const top = await readState.readWindow(user, undefined, 4);
    const topRequests = db.meter.snapshot().requests;
    const below = await readState.readWindow(user, ids[5], 100);
    const range = await readState.listExceptions(user, ids[2]!, ids[5]);

    // Assess
    expect([...top.state.exceptions.keys()]).toEqual(ids.slice(6).reverse());
    expect(top.exceptionsFrom).toBe(ids[6]);
    expect(top.state.readMark).toBe(markAt(T0));
    expect(topRequests).toBe(1);
    expect([...below.state.exceptions.keys()]).toEqual(ids.slice(0, 5).reverse());
    expect(below.exceptionsFrom).toBeUndefined();
    expect(below.state.readMark).toBe(markAt(T0));
    expect([...range.keys()]).toEqual(ids.slice(2, 5).reverse());
  });
});

describe('readAboveMark (counts)', () => {
  it('stops at the first exception at or below the read mark: 1,000 old exceptions cost one query', async () => {
    // Prepare
    const user = freshUser();
    const old = notificationsEverySecond(1_000, T0).map((item) => item.id);
    const recent = notificationsEverySecond(3, T0 + 2_000 * SECOND, { eventId: 'recent' }).map((item) => item.id);
    await readState.putExceptions(user, new Map([...old, ...recent].map((id) => [id, exception()])));
    await readState.advanceReadMark(user, markAt(T0 + 1_500 * SECOND), iso(T0 + 1_500 * SECOND));
    db.meter.reset();

    // Act
    const state = await readState.readAboveMark(user);

    // Assess
    expect([...state.exceptions.keys()].sort()).toEqual(recent);
    expect(db.meter.snapshot().byCommand).toEqual({ QueryCommand: 1 });
  });

  it('1,000 exceptions ABOVE the read mark (single reads since the last read-all) cost two queries: the marks with the newest, then one ranged query of the rest', async () => {
    // Prepare
    const user = freshUser();
    const below = notificationsEverySecond(20, T0, { eventId: 'below' }).map((item) => item.id);
    const above = notificationsEverySecond(1_000, T0 + 100 * SECOND, { eventId: 'above' }).map((item) => item.id);
    await readState.putExceptions(user, new Map([...below, ...above].map((id) => [id, exception()])));
    await readState.advanceReadMark(user, markAt(T0 + 50 * SECOND), iso(T0 + 50 * SECOND));
    db.meter.reset();

    // Act
    const state = await readState.readAboveMark(user);

    // Assess
    expect([...state.exceptions.keys()].sort()).toEqual([...above].sort());
    expect(state.readMark).toBe(markAt(T0 + 50 * SECOND));
    expect(db.meter.snapshot().byCommand).toEqual({ QueryCommand: 2 });
  });

  it('without a read mark every exception is above it; a page holding only the marks item still finds the rest', async () => {
    // Prepare
    const user = freshUser();
    const ids = notificationsEverySecond(7, T0).map((item) => item.id);
    await readState.putExceptions(user, new Map(ids.map((id) => [id, exception()])));
    await readState.advanceSeenMark(user, markAt(T0), iso(T0));
    const tiny = new ReadStateRepository(db.client, db.dynamo.tableNames.readMarks, 0);

    // Act
    const state = await tiny.readAboveMark(user);

    // Assess
    expect([...state.exceptions.keys()].sort()).toEqual([...ids].sort());
    expect(state.seenMark).toBe(markAt(T0));
  });
});

describe('advanceReadMark / advanceSeenMark', () => {
  it('mark-all-read is ONE write: the mark, the next version', async () => {
    // Prepare
    const user = freshUser();

    // Act
    const result = await readState.advanceReadMark(user, markAt(T0), iso(T0));

    // Assess
    expect(result).toEqual({ readAt: iso(T0) });
    expect(db.meter.snapshot().byCommand).toEqual({ UpdateItemCommand: 1 });
    expect(await marksOf(user)).toMatchObject({ readMark: markAt(T0), readAt: iso(T0), version: 1, readVersion: 1, seenMark: null });
  });

  it('a read-all of an older upTo keeps the mark, answers its time, and is kept as a stale read-all until one reaches the mark', async () => {
    // Prepare
    const user = freshUser();
    await readState.advanceReadMark(user, markAt(T0 + SECOND), iso(T0 + SECOND));
    db.meter.reset();

    // Act
    const stale = await readState.advanceReadMark(user, markAt(T0), iso(T0));
    const staleRequests = db.meter.snapshot().byCommand;
    const afterStale = await marksOf(user);
    await readState.advanceReadMark(user, markAt(T0 + SECOND), iso(T0 + SECOND));

    // Assess
    expect(stale).toEqual({ readAt: iso(T0 + SECOND) });
    // The failed guard, a read of the item, the guarded write (ReturnValuesOnConditionCheckFailure would spare the read on AWS).
    expect(staleRequests).toEqual({ UpdateItemCommand: 2, GetItemCommand: 1 });
    expect(afterStale).toMatchObject({ readMark: markAt(T0 + SECOND), version: 2, readVersion: 1, staleReadAlls: [{ version: 2, mark: markAt(T0) }] });
    expect(await marksOf(user)).toMatchObject({ version: 3, readVersion: 3, staleReadAlls: [] });
  });

  it('the seen mark only moves forward; a late one answers the stored time', async () => {
    // Prepare
    const user = freshUser();
    await readState.advanceSeenMark(user, markAt(T0 + SECOND), iso(T0 + SECOND));

    // Act
    const late = await readState.advanceSeenMark(user, markAt(T0), iso(T0));

    // Assess
    expect(late).toEqual({ seenAt: iso(T0 + SECOND) });
    expect(await marksOf(user)).toMatchObject({ seenMark: markAt(T0 + SECOND), readMark: null });
  });

  it('a 0.1.0 marks item (no version) still reads its notifications read', async () => {
    // Prepare
    const user = freshUser();
    const [id] = notificationsEverySecond(1, T0).map((item) => item.id);
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.readMarks, Item: { ...keys.readMark(user.tenantId, user.userId), readMark: markAt(T0), readAt: iso(T0) } }));

    // Act
    const state = await marksOf(user);

    // Assess
    expect(state).toMatchObject({ version: 0, readVersion: 0 });
    expect(isRead(id!, state)).toBe(true);
  });
});

describe('archiveAllRead', () => {
  it('ONE UpdateItem copies the read-alls into the archive snapshot and takes the next version', async () => {
    // Prepare
    const user = freshUser();
    await readState.advanceReadMark(user, markAt(T0 + SECOND), iso(T0 + SECOND));
    await readState.advanceReadMark(user, markAt(T0), iso(T0));
    db.meter.reset();

    // Act
    await readState.archiveAllRead(user, iso(T0 + 2 * SECOND));

    // Assess
    expect(db.meter.snapshot().byCommand).toEqual({ UpdateItemCommand: 1 });
    expect(await marksOf(user)).toMatchObject({
      version: 3,
      archivedAt: iso(T0 + 2 * SECOND),
      archive: { version: 3, readMark: markAt(T0 + SECOND), readVersion: 1, staleReadAlls: [{ version: 2, mark: markAt(T0) }] },
    });
  });

  it('with nothing read yet the snapshot has no read mark', async () => {
    const user = freshUser();
    await readState.archiveAllRead(user, iso(T0));
    expect((await marksOf(user)).archive).toEqual({ version: 1, readMark: null, readVersion: 0, staleReadAlls: [] });
  });
});

describe('putExceptions / getExceptions / recordUnreadBelowMark', () => {
  it('one exception is one PutItem, many are BatchWriteItems of 25; they read back as written', async () => {
    // Prepare
    const user = freshUser();
    const ids = notificationsEverySecond(30, T0).map((item) => item.id);
    const snoozed = exception({ read: false, snoozedUntil: T0 + 60_000, comebackId: ids[1]!, source: 'star', comeback: { from: ids[2]!, rootId: ids[3]!, rootActor: 'star' } });

    // Act
    await readState.putExceptions(user, new Map([[ids[0]!, snoozed]]));
    const one = db.meter.snapshot().byCommand;
    db.meter.reset();
    await readState.putExceptions(user, new Map(ids.slice(1).map((id) => [id, exception()])));
    const many = db.meter.snapshot().byCommand;

    // Assess
    expect(one).toEqual({ PutItemCommand: 1 });
    expect(many).toEqual({ BatchWriteItemCommand: 2 });
    expect((await readState.getExceptions(user, [ids[0]!, 'none'])).get(ids[0]!)).toEqual(snoozed);
  });

  it('names ids marked unread below the read mark on the marks item, and forgets the ones asked', async () => {
    // Prepare
    const user = freshUser();
    const [a, b] = notificationsEverySecond(2, T0).map((item) => item.id) as [string, string];
    await readState.recordUnreadBelowMark(user, [a], 1, []);

    // Act
    await readState.recordUnreadBelowMark(user, [b], 2, [a]);

    // Assess
    expect((await marksOf(user)).unreadBelowMark).toEqual(new Map([[b, 2]]));
  });
});

describe('advanceReadMark on DynamoDB (error paths a local store cannot produce)', () => {
  it('a stale read-all that keeps losing the race for the marks item gives up with an error, not a silent no-op', async () => {
    // Prepare: every write fails its guard, as if another device wrote each time.
    const client = createDocumentClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const dynamo = mockClient(client);
    dynamo.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    dynamo.on(GetCommand).resolves({ Item: { pk: 'T#acme#U#alice', sk: 'READMARK', readMark: markAt(T0 + SECOND), readAt: iso(T0 + SECOND), ver: 4, readVer: 4 } });
    const repository = new ReadStateRepository(client, 'ReadMarks');

    // Act + Assess
    await expect(repository.advanceReadMark({ tenantId: 'acme', userId: 'alice' }, markAt(T0), iso(T0))).rejects.toThrow(/lost 5 races/);
    expect(dynamo.commandCalls(UpdateCommand)[1]!.args[0].input).toMatchObject({ ConditionExpression: 'ver = :previous', ExpressionAttributeValues: { ':previous': 4, ':version': 5 } });
    dynamo.restore();
    client.destroy();
  });
});

describe('the read state upgrade step (0.1.0 single reads)', () => {
  it('turns each READ#<id> into an exception reads find, never over a newer exception, and a rerun changes nothing', async () => {
    // Prepare
    const user = freshUser();
    const [kept, converted] = notificationsEverySecond(2, T0).map((item) => item.id) as [string, string];
    for (const id of [kept, converted]) await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.readMarks, Item: { ...keys.readException(user.tenantId, user.userId, id), expiresAt: EXPIRES } }));
    await readState.putExceptions(user, new Map([[kept, exception({ read: false, basis: 3 })]]));

    // Act
    const first = await convertSingleReads(db.client, db.dynamo.tableNames.readMarks);
    const again = await convertSingleReads(db.client, db.dynamo.tableNames.readMarks);

    // Assess
    expect(first).toBeGreaterThanOrEqual(1);
    expect(again).toBe(0);
    const exceptions = await readState.getExceptions(user, [kept, converted]);
    expect(exceptions.get(converted)).toEqual(exception({ type: '', basis: -1 }));
    expect(exceptions.get(kept)).toMatchObject({ read: false, basis: 3 });
  });
});

describe('the counts floor and late arrivals\' markers (src/core/model/counts-floor.ts)', () => {
  const marker = (user: UserRef, id: string) => ({ user, id, expiresAt: EXPIRES });

  it('counts read the markers above the read mark with the marks, every one past the first page, and the exceptions above the floor only', async () => {
    // Prepare: 10 exceptions, the floor above the 6 oldest, a read-all below all of them, and 60 markers (the page is 50).
    const user = freshUser();
    const ids = notificationsEverySecond(70, T0).map((item) => item.id);
    const read = ids.slice(0, 10);
    await readState.putExceptions(user, new Map(read.map((id) => [id, exception()])));
    await readState.advanceReadMark(user, markAt(T0 - SECOND), iso(T0));
    expect(await readState.advanceCountsFloor(user, null, read[5]!)).toBe(true);
    await readState.recordLateArrivals(ids.slice(10).map((id) => marker(user, id)));

    // Act
    const state = await readState.readAboveMark(user);

    // Assess
    expect(state.countsFloor).toBe(read[5]);
    expect([...state.exceptions.keys()].sort()).toEqual(read.slice(6));
    expect([...(state.lateArrivals?.keys() ?? [])].sort()).toEqual(ids.slice(10));
  });

  it('moves the floor only from the floor it read (a lost race keeps the other count\'s floor)', async () => {
    const user = freshUser();
    const [a, b, c] = notificationsEverySecond(3, T0).map((item) => item.id);
    expect(await readState.advanceCountsFloor(user, null, a!)).toBe(true);
    expect(await readState.advanceCountsFloor(user, null, b!)).toBe(false);
    expect(await readState.advanceCountsFloor(user, a!, c!)).toBe(true);
    expect((await marksOf(user)).countsFloor).toBe(c);
  });

  it('a page window that read only markers knows no exception (never "all of them")', async () => {
    // Prepare: 3 exceptions under 25 markers; a window of 20 gets the marks and markers only.
    const user = freshUser();
    const ids = notificationsEverySecond(28, T0).map((item) => item.id);
    await readState.putExceptions(user, new Map(ids.slice(0, 3).map((id) => [id, exception()])));
    await readState.recordLateArrivals(ids.slice(3).map((id) => marker(user, id)));

    // Act
    const window = await readState.readWindow(user, undefined, 20);

    // Assess: the page reads the exceptions of its own range (exceptionsFrom above every id).
    expect(window.state.exceptions.size).toBe(0);
    expect(window.exceptionsFrom).toBeDefined();
    expect(ids.every((id) => id < window.exceptionsFrom!)).toBe(true);
  });
});
