/**
 * The coalescing document client against dynalite: the inbox writes and reads of ten concurrent
 * callers (the records of one SQS batch) go out as one BatchWriteItem and one BatchGetItem, every
 * item lands, every caller reads exactly its own items, and a key written by two callers at once
 * ends with the later write.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { coalescingDocumentClient } from '../../src/adapters/dynamo/coalescing-client.js';
import { DynamoErasedUsers } from '../../src/adapters/dynamo/erased-users.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { tableSpecs } from '../../src/table-specs.js';
import { erasureRecordId } from '../../src/core/privacy/erasure.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { aNotification, inboxItemsFor, ownSource, T0 } from '../support/fixtures.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let db: TestDynamo;
let inbox: InboxRepository;
let erased: DynamoErasedUsers;

beforeAll(async () => {
  db = await startTestDynamo();
  const { inbox: inboxTable, idempotency } = db.dynamo.tableNames;
  const keys = new Map([
    [inboxTable, [tableSpecs.inbox.partitionKey.name, tableSpecs.inbox.sortKey.name]],
    [idempotency, [tableSpecs.idempotency.partitionKey.name]],
  ]);
  const client = coalescingDocumentClient(db.client, (table) => keys.get(table));
  inbox = new InboxRepository(client, inboxTable);
  erased = new DynamoErasedUsers(client, idempotency);
});
afterAll(async () => db.close());
beforeEach(() => db.meter.reset());

const users = Array.from({ length: 10 }, (_, index) => ({ tenantId: 'acme', userId: `co-${index}` }));

it('ten callers writing two items each: one BatchWriteItem, every item stored; ten callers reading: one BatchGetItem, each its own items', async () => {
  const writes = users.map((user, index) => inboxItemsFor(user, [aNotification(T0 + index * 1_000, { title: `a${index}` }), aNotification(T0 + index * 1_000 + 1, { title: `b${index}` })]));
  await Promise.all(writes.map((items) => inbox.writeInboxItems(items)));
  expect(db.meter.snapshot().byCommand).toEqual({ BatchWriteItemCommand: 1 });

  db.meter.reset();
  const found = await Promise.all(writes.map((items, index) => inbox.getItems(items.map(({ item }) => ({ source: ownSource(users[index]!), id: item.id })))));
  expect(db.meter.snapshot().byCommand).toEqual({ BatchGetItemCommand: 1 });
  found.forEach((items, index) => expect([...items.values()].map((item) => item.title).sort()).toEqual([`a${index}`, `b${index}`]));
});

it('the same item written by two callers at once, beside 25 other items: 25 + 1 items, then the second write of the key alone; the later write wins', async () => {
  const user = users[0]!;
  const first = aNotification(T0 + 50_000, { title: 'first' });
  const second = { ...first, title: 'second' };
  const others = Array.from({ length: 25 }, (_, index) => aNotification(T0 + 60_000 + index, { title: `o${index}` }));
  await Promise.all([inbox.writeInboxItems(inboxItemsFor(user, [first])), inbox.writeInboxItems(inboxItemsFor(user, [second])), inbox.writeInboxItems(inboxItemsFor(users[1]!, others))]);
  expect(db.meter.snapshot().byCommand).toEqual({ BatchWriteItemCommand: 3 });
  const stored = await inbox.getItems([{ source: ownSource(user), id: first.id }]);
  expect([...stored.values()].map((item) => item.title)).toEqual(['second']);
});

it('concurrent erasure checks: one BatchGetItem, each caller told only about its own users', async () => {
  await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.idempotency, Item: { id: erasureRecordId({ tenantId: 'acme', userId: 'gone' }), status: 'COMPLETED' } }));
  db.meter.reset();
  const [withGone, without, sharedKey] = await Promise.all([erased.erasedAmong('acme', ['a', 'gone']), erased.erasedAmong('acme', ['b', 'c']), erased.erasedAmong('acme', ['gone'])]);
  expect(db.meter.snapshot().byCommand).toEqual({ BatchGetItemCommand: 1 });
  expect([...withGone]).toEqual(['gone']);
  expect([...without]).toEqual([]);
  expect([...sharedKey]).toEqual(['gone']);
});
