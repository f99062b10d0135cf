/** The user export on dynalite: 10,000 notifications, read state, preferences and edges round-trip through the schema. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, ScanCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertSubscriptionRepository } from '../../src/adapters/dynamo/alert-subscriptions.js';
import { batchPutAll } from '../../src/adapters/dynamo/batch.js';
import { UserExporter } from '../../src/adapters/dynamo/user-exporter.js';
import { userExportSchema } from '../../src/contract/user-export.js';
import { notificationId } from '../../src/core/model/ids.js';
import { keys } from '../../src/core/model/keys.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

const TENANT = 'acme';
const USER = 'exp-ørjan';
const NOTIFICATIONS = 300;
const LARGE_INBOX = 10_000;
let db: TestDynamo;

beforeAll(async () => {
  db = await startTestDynamo();
});

afterAll(async () => {
  await db?.close();
});

describe('UserExporter', () => {
  it('streams a user\'s inbox, read state, preferences and follow edges from dynalite as a document the schema accepts', async () => {
    // Prepare
    const tables = db.dynamo.tableNames;
    const baseMs = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: NOTIFICATIONS }, (_, index) => notificationId({ tenantId: TENANT, type: 'mention.created', eventId: `e-${index}`, recipient: USER, timeMs: baseMs + index }));
    await batchPutAll(
      db.client,
      tables.inbox,
      ids.map((id, index) => ({ ...keys.inboxItem(TENANT, USER, id), type: 'mention.created', createdAt: new Date(baseMs + index).toISOString(), actor: { id: 'bob' }, title: 'Bob mentioned you', body: `#${index}`, data: { postId: `p-${index}` }, expiresAt: 1_900_000_000 })),
      { parallelism: 16 },
    );
    const readMark = ids[149]!;
    await db.client.send(new PutCommand({ TableName: tables.readMarks, Item: { ...keys.readMark(TENANT, USER), readMark, readAt: '2026-01-02T00:00:00.000Z' } }));
    await db.client.send(new PutCommand({ TableName: tables.readMarks, Item: { ...keys.readException(TENANT, USER, ids[200]!), expiresAt: 1_900_000_000 } }));
    await db.client.send(new PutCommand({ TableName: tables.graph, Item: { ...keys.preferences(TENANT, USER), timeZone: 'Europe/Oslo', quietHours: null, mutedTypes: [], liveDelivery: {}, updatedAt: '2026-01-01T00:00:00.000Z' } }));
    await db.client.send(new PutCommand({ TableName: tables.graph, Item: { ...keys.follower(TENANT, 'olga', USER), followedAt: '2026-01-01T00:00:00.000Z', counted: true } }));
    // Written with each follow edge (the export reads their list, never scans the followees' edges); an unfollowed one is left out.
    await db.client.send(new PutCommand({ TableName: tables.graph, Item: { ...keys.following(TENANT, USER, 'olga'), followedAt: '2026-01-01T00:00:00.000Z' } }));
    await db.client.send(new PutCommand({ TableName: tables.graph, Item: { ...keys.following(TENANT, USER, 'gone'), followedAt: '2026-01-01T00:00:00.000Z', unfollowedAt: '2026-01-02T00:00:00.000Z', expiresAt: 1_900_000_000 } }));
    await db.client.send(new PutCommand({ TableName: tables.graph, Item: { ...keys.follower(TENANT, USER, 'pia'), followedAt: '2026-01-01T00:00:00.000Z', counted: true } }));
    // Post alerts: theirs on olga's posts (one turned off again), and pia's on theirs.
    const alerts = new AlertSubscriptionRepository(db.client, tables.graph);
    await alerts.subscribe(TENANT, 'olga', USER, '2026-01-03T00:00:00.000Z');
    await alerts.subscribe(TENANT, 'ida', USER, '2026-01-03T00:00:00.000Z');
    await alerts.unsubscribe(TENANT, 'ida', USER);
    await alerts.subscribe(TENANT, USER, 'pia', '2026-01-04T00:00:00.000Z');
    const chunks: string[] = [];

    // Act
    await new UserExporter({ client: db.client, tables, feedShards: 4 }).export({ tenantId: TENANT, userId: USER }, (text) => {
      chunks.push(text);
    });

    // Assess
    const document = userExportSchema.parse(JSON.parse(chunks.join('')));
    expect(document.inbox).toHaveLength(NOTIFICATIONS);
    expect(document.inbox.filter((item) => item.read)).toHaveLength(151);
    expect(document.readState).toMatchObject({ readMark, singleReads: [ids[200]] });
    expect(document.preferences).toMatchObject({ timeZone: 'Europe/Oslo' });
    expect(document.following).toEqual([{ userId: 'olga', followedAt: '2026-01-01T00:00:00.000Z' }]);
    expect(document.followers).toEqual([{ userId: 'pia', followedAt: '2026-01-01T00:00:00.000Z' }]);
    expect(document.alertSubscriptions).toEqual([{ accountId: 'olga', since: '2026-01-03T00:00:00.000Z' }]);
    expect(document.alertSubscribers).toEqual([{ userId: 'pia', since: '2026-01-04T00:00:00.000Z' }]);
    expect(document).toMatchObject({ tenantId: TENANT, userId: USER, devices: [], connections: [], profile: null });
  });

  it('streams 10,000 notifications page by page, and the document round-trips through the schema', async () => {
    // Prepare: a document client answering the inbox Query in pages from memory (dynalite is too slow to seed 10,000 in the test budget).
    const tables = db.dynamo.tableNames;
    const inboxPk = keys.inboxItem(TENANT, USER, 'x').pk;
    const baseMs = Date.UTC(2026, 0, 1);
    const items = Array.from({ length: LARGE_INBOX }, (_, index) => {
      const id = notificationId({ tenantId: TENANT, type: 'post.published', eventId: `e-${index}`, recipient: USER, timeMs: baseMs + index });
      return { pk: inboxPk, sk: id, type: 'post.published', createdAt: new Date(baseMs + index).toISOString(), actor: { id: `a-${index % 50}`, name: 'Ann' }, title: 'A post', body: 'ü'.repeat(index % 7), data: { postId: `p-${index}`, tags: ['x'] }, expiresAt: 1_900_000_000 };
    });
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const mock = mockClient(client);
    mock.on(QueryCommand).callsFake(async (input: QueryCommandInput) => {
      if (input.TableName !== tables.inbox || input.ExpressionAttributeValues?.[':pk'] !== inboxPk) return { Items: [] };
      const start = Number(input.ExclusiveStartKey?.offset ?? 0);
      const page = items.slice(start, start + (input.Limit ?? 1_000));
      return { Items: page, ...(start + page.length < items.length ? { LastEvaluatedKey: { offset: start + page.length } } : {}) };
    });
    mock.on(ScanCommand).resolves({ Items: [] });
    const chunks: string[] = [];

    // Act
    await new UserExporter({ client, tables, feedShards: 4 }).export({ tenantId: TENANT, userId: USER }, (text) => {
      chunks.push(text);
    });

    // Assess
    const text = chunks.join('');
    const document = userExportSchema.parse(JSON.parse(text));
    expect(document.inbox).toHaveLength(LARGE_INBOX);
    expect(document.inbox.map((item) => item.id)).toEqual(items.map((item) => item.sk));
    expect(chunks.length).toBeGreaterThanOrEqual(LARGE_INBOX / 1_000); // one write per page, not one document built whole
    expect(JSON.parse(JSON.stringify(document))).toEqual(JSON.parse(text));
    mock.restore();
    client.destroy();
  });
});
