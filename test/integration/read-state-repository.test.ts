import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import { keys } from '../../src/core/model/keys.js';
import { markAt } from '../../src/core/model/read-state.js';
import type { UserRef } from '../../src/core/model/user.js';
import { notificationsEverySecond, SECOND, T0 } from '../support/fixtures.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let db: TestDynamo;
let readState: ReadStateRepository;
let userCounter = 0;
const freshUser = (): UserRef => ({ tenantId: 'acme', userId: `reader-${(userCounter += 1)}` });
const iso = (ms: number) => new Date(ms).toISOString();
const EXPIRES = Math.floor(T0 / 1000) + 90 * 86_400;

beforeAll(async () => {
  db = await startTestDynamo();
  readState = new ReadStateRepository(db.client, db.dynamo.tableNames.readMarks);
});
afterAll(async () => db.close());
beforeEach(() => db.meter.reset());

describe('getReadState', () => {
  it('a user who never read anything has no marks and no exceptions, in one query', async () => {
    // Act
    const state = await readState.getReadState(freshUser());

    // Assess
    expect(state).toEqual({ readMark: null, readAt: null, seenMark: null, seenAt: null, readExceptions: new Set() });
    expect(db.meter.snapshot().byCommand).toEqual({ QueryCommand: 1 });
  });
});

describe('advanceReadMark / advanceSeenMark', () => {
  it('mark-all-read is ONE write and sets the mark', async () => {
    // Prepare
    const user = freshUser();

    // Act
    const result = await readState.advanceReadMark(user, markAt(T0), iso(T0));

    // Assess
    expect(result).toEqual({ readAt: iso(T0) });
    expect(db.meter.snapshot().byCommand).toEqual({ UpdateItemCommand: 1 });
    expect(await readState.getReadState(user)).toMatchObject({ readMark: markAt(T0), readAt: iso(T0), seenMark: null });
  });

  it('the mark moves forward', async () => {
    // Prepare
    const user = freshUser();
    await readState.advanceReadMark(user, markAt(T0), iso(T0));

    // Act
    const result = await readState.advanceReadMark(user, markAt(T0 + SECOND), iso(T0 + SECOND));

    // Assess
    expect(result).toEqual({ readAt: iso(T0 + SECOND) });
    expect(await readState.getReadState(user)).toMatchObject({ readMark: markAt(T0 + SECOND), readAt: iso(T0 + SECOND) });
  });

  it('an older (or equal) mark is a no-op: one write attempt, state unchanged, the stored time returned', async () => {
    // Prepare
    const user = freshUser();
    await readState.advanceReadMark(user, markAt(T0 + SECOND), iso(T0 + SECOND));
    db.meter.reset();

    // Act
    const older = await readState.advanceReadMark(user, markAt(T0), iso(T0));
    const equal = await readState.advanceReadMark(user, markAt(T0 + SECOND), iso(T0 + 2 * SECOND));

    // Assess: one write attempt each. dynalite does not return the old item with the failed
    // condition, so here a GetItem reads the stored time; on DynamoDB it is one request (see below).
    expect(db.meter.snapshot().byCommand).toEqual({ UpdateItemCommand: 2, GetItemCommand: 2 });
    expect(older).toEqual({ readAt: iso(T0 + SECOND) });
    expect(equal).toEqual({ readAt: iso(T0 + SECOND) });
    expect(await readState.getReadState(user)).toMatchObject({ readMark: markAt(T0 + SECOND), readAt: iso(T0 + SECOND) });
  });

  it('concurrent marks from several devices: the newest wins, whatever the arrival order', async () => {
    // Prepare
    const user = freshUser();
    const instants = [5, 1, 9, 3, 7, 2, 8].map((n) => T0 + n * SECOND);

    // Act
    await Promise.all(instants.map((ms) => readState.advanceReadMark(user, markAt(ms), iso(ms))));

    // Assess
    expect(await readState.getReadState(user)).toMatchObject({ readMark: markAt(T0 + 9 * SECOND), readAt: iso(T0 + 9 * SECOND) });
    expect(db.meter.snapshot().byCommand.UpdateItemCommand).toBe(instants.length);
  });

  it('seen and read marks are independent', async () => {
    // Prepare
    const user = freshUser();
    await readState.advanceReadMark(user, markAt(T0), iso(T0));

    // Act
    const seen = await readState.advanceSeenMark(user, markAt(T0 + SECOND), iso(T0 + SECOND));
    const olderSeen = await readState.advanceSeenMark(user, markAt(T0 - SECOND), iso(T0 - SECOND));

    // Assess
    expect(seen).toEqual({ seenAt: iso(T0 + SECOND) });
    expect(olderSeen).toEqual({ seenAt: iso(T0 + SECOND) });
    expect(await readState.getReadState(user)).toMatchObject({
      readMark: markAt(T0),
      readAt: iso(T0),
      seenMark: markAt(T0 + SECOND),
      seenAt: iso(T0 + SECOND),
    });
  });

  it('a mark of one user never moves another user\'s or tenant\'s mark', async () => {
    // Prepare
    const user = freshUser();
    const sameIdOtherTenant = { tenantId: 'globex', userId: user.userId };

    // Act
    await readState.advanceReadMark(user, markAt(T0), iso(T0));

    // Assess
    expect((await readState.getReadState(sameIdOtherTenant)).readMark).toBeNull();
    expect((await readState.getReadState(freshUser())).readMark).toBeNull();
  });
});

describe('single-read exceptions', () => {
  it('recordSingleRead is one put; exceptions above the mark are returned', async () => {
    // Prepare
    const user = freshUser();
    const [a, b, c] = notificationsEverySecond(3, T0 + 10 * SECOND).map((item) => item.id) as [string, string, string];
    await readState.advanceReadMark(user, markAt(T0), iso(T0));
    db.meter.reset();

    // Act
    await readState.recordSingleRead(user, a, EXPIRES);
    await readState.recordSingleRead(user, c, EXPIRES);

    // Assess
    expect(db.meter.snapshot().byCommand).toEqual({ PutItemCommand: 2 });
    const state = await readState.getReadState(user);
    expect(state.readExceptions).toEqual(new Set([a, c]));
    expect(state.readExceptions.has(b)).toBe(false);
    const stored = await db.client.send(new GetCommand({ TableName: db.dynamo.tableNames.readMarks, Key: keys.readException(user.tenantId, user.userId, a) }));
    expect(stored.Item?.expiresAt).toBe(EXPIRES);
  });

  it('exceptions at or below the mark are ignored, and reading stops at the mark', async () => {
    // Prepare: 250 old exceptions (more than one query page) below the mark, 2 above it.
    const user = freshUser();
    const old = notificationsEverySecond(250, T0).map((item) => item.id);
    const recent = notificationsEverySecond(2, T0 + 1000 * SECOND).map((item) => item.id);
    for (const id of [...old, ...recent]) await readState.recordSingleRead(user, id, EXPIRES);
    await readState.advanceReadMark(user, markAt(T0 + 500 * SECOND), iso(T0 + 500 * SECOND));
    db.meter.reset();

    // Act
    const state = await readState.getReadState(user);

    // Assess
    expect(state.readExceptions).toEqual(new Set(recent));
    expect(db.meter.snapshot().byCommand).toEqual({ QueryCommand: 1 });
  });

  it('pages through many exceptions above the mark', async () => {
    // Prepare: 450 single reads and no mark.
    const user = freshUser();
    const ids = notificationsEverySecond(450, T0).map((item) => item.id);
    for (const id of ids) await readState.recordSingleRead(user, id, EXPIRES);
    db.meter.reset();

    // Act
    const state = await readState.getReadState(user);

    // Assess
    expect(state.readExceptions).toEqual(new Set(ids));
    expect(db.meter.snapshot().byCommand.QueryCommand).toBe(3);
  });

  it('exceptions of other users are not returned', async () => {
    // Prepare
    const user = freshUser();
    const other = freshUser();
    const [id] = notificationsEverySecond(1, T0).map((item) => item.id) as [string];
    await readState.recordSingleRead(other, id, EXPIRES);

    // Act + Assess
    expect((await readState.getReadState(user)).readExceptions.size).toBe(0);
  });
});

describe('advanceReadMark on DynamoDB (ReturnValuesOnConditionCheckFailure)', () => {
  it('a no-op mark answers the stored readAt from the failed condition, in one request', async () => {
    // Prepare: DynamoDB returns the existing item with the ConditionalCheckFailedException.
    const client = createDocumentClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const dynamo = mockClient(client);
    dynamo.on(UpdateCommand).rejects(
      new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: { readAt: { S: iso(T0 + SECOND) } } }),
    );
    const repository = new ReadStateRepository(client, 'ReadMarks');

    // Act
    const result = await repository.advanceReadMark({ tenantId: 'acme', userId: 'alice' }, markAt(T0), iso(T0));

    // Assess
    expect(result).toEqual({ readAt: iso(T0 + SECOND) });
    expect(dynamo.calls()).toHaveLength(1);
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      Key: { pk: 'T#acme#U#alice', sk: 'READMARK' },
      ConditionExpression: 'attribute_not_exists(readMark) OR readMark < :mark',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    dynamo.restore();
    client.destroy();
  });
});
