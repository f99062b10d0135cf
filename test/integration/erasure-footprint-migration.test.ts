/**
 * The upgrade step that writes the erasure footprint of data from before it (FOLLOWING entries, the
 * author index attribute), on dynalite: an erasure does not find a pre-footprint follow pair or
 * mention; after the step it does, and removes exactly what is the erased user's. The step is
 * idempotent and leaves other users' items as they were.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillErasureFootprint, ensureErasureFootprint } from '../../src/adapters/dynamo/erasure-footprint-migration.js';
import { UserEraser } from '../../src/adapters/dynamo/user-eraser.js';
import { AUTHOR_INDEX, keys } from '../../src/core/model/keys.js';
import { notificationId } from '../../src/core/model/ids.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let db: TestDynamo;
const AT = '2026-01-01T00:00:00.000Z';

beforeAll(async () => {
  db = await startTestDynamo();
});
afterAll(async () => db?.close());

const put = (table: 'graph' | 'inbox', item: Record<string, unknown>) => db.client.send(new PutCommand({ TableName: db.dynamo.tableNames[table], Item: item }));
const get = async (table: 'graph' | 'inbox', key: { pk: string; sk: string }) => (await db.client.send(new GetCommand({ TableName: db.dynamo.tableNames[table], Key: key, ConsistentRead: true }))).Item;

/** A tenant as an older version left it: erin and cy follow ann, each mentioned bob; no FOLLOWING entries, no author index attribute. */
async function olderData(tenantId: string) {
  const mention = (recipient: string, actor: string, event: string) => {
    const id = notificationId({ tenantId, type: 'comment.mentioned', eventId: event, recipient, timeMs: Date.parse(AT) });
    return { ...keys.inboxItem(tenantId, recipient, id), type: 'comment.mentioned', createdAt: AT, actor: { id: actor }, title: `${actor} mentioned you`, body: '', data: { by: 'erin' }, expiresAt: 4_000_000_000 };
  };
  const fromErin = mention('bob', 'erin', 'e1');
  const fromCy = mention('bob', 'cy', 'e2');
  await put('graph', { ...keys.profile(tenantId, 'ann'), followerCount: 2 });
  await put('graph', { ...keys.follower(tenantId, 'ann', 'erin'), followedAt: AT, counted: true });
  await put('graph', { ...keys.follower(tenantId, 'ann', 'cy'), followedAt: AT, counted: true });
  await put('inbox', fromErin);
  await put('inbox', fromCy);
  return { fromErin, fromCy };
}

const erase = (tenantId: string) => new UserEraser({ client: db.client, tables: db.dynamo.tableNames, feedShards: 1, graceMs: 0, tombstoneTtlSeconds: 60 }, { tenantId, userId: 'erin' }).run();

describe('erasure footprint of older data (npm run migrate)', () => {
  it('without the step an erasure misses the older follow pair and mention', async () => {
    // Prepare
    const tenantId = 'fp-before';
    const { fromErin } = await olderData(tenantId);

    // Act
    await erase(tenantId);

    // Assess: the known gap the step closes
    expect(await get('graph', keys.follower(tenantId, 'ann', 'erin'))).toBeDefined();
    expect(await get('inbox', { pk: fromErin.pk, sk: fromErin.sk })).toBeDefined();
  });

  it('after the step the erasure removes erin\'s follow pair (and count) and her mention, nothing of others', async () => {
    // Prepare
    const tenantId = 'fp-after';
    const { fromErin, fromCy } = await olderData(tenantId);

    // Act
    const first = await backfillErasureFootprint(db.client, db.dynamo.tableNames);
    const second = await backfillErasureFootprint(db.client, db.dynamo.tableNames);
    const report = await erase(tenantId);

    // Assess
    expect(first.followingEntries).toBeGreaterThanOrEqual(2);
    expect(first.authorRefs).toBeGreaterThanOrEqual(2);
    expect(second.authorRefs).toBe(0);
    expect((await get('graph', keys.following(tenantId, 'cy', 'ann')))?.firstRecordAt).toBe(AT);
    expect(await get('graph', keys.follower(tenantId, 'ann', 'erin'))).toBeUndefined();
    expect((await get('graph', keys.profile(tenantId, 'ann')))?.followerCount).toBe(1);
    expect(await get('inbox', { pk: fromErin.pk, sk: fromErin.sk })).toBeUndefined();
    expect(report.removed['inbox.authoredNotification']).toBe(1);
    // cy's follow pair and mention stay, the mention with its author index attribute only added
    expect(await get('graph', keys.follower(tenantId, 'ann', 'cy'))).toEqual({ ...keys.follower(tenantId, 'ann', 'cy'), followedAt: AT, counted: true });
    expect(await get('inbox', { pk: fromCy.pk, sk: fromCy.sk })).toEqual({ ...fromCy, [AUTHOR_INDEX.attribute]: `T#${tenantId}#U#cy` });
  });

  it('the local start runs it once (a marker)', async () => {
    // Act
    const first = await ensureErasureFootprint(db.client, db.dynamo.tableNames);
    const again = await ensureErasureFootprint(db.client, db.dynamo.tableNames);

    // Assess
    expect(first).toBeDefined();
    expect(again).toBeUndefined();
  });
});
