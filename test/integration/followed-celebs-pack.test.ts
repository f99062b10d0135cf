/**
 * The packed followed-celebrities list (one String Set per chunk) on dynalite: follow, repeated
 * follow, unfollow, unfollow of an unknown user, duplicate elements (latest wins), an unfollow that
 * crashes between the pack and the edge, 600 follows read in ONE request, hostile ids, the 400 KB
 * limit, erasure of one celebrity from a fan's chunk, and the upgrade backfill from 0.1.0 edges (run twice).
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchPutAll } from '../../src/adapters/dynamo/batch.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { backfillFollowedCelebrityPacks, ensureFollowedCelebrityPacks, FollowedPackFullError, FOLLOWED_PACK_MIGRATION } from '../../src/adapters/dynamo/followed-celebs-pack.js';
import { UserEraser } from '../../src/adapters/dynamo/user-eraser.js';
import { FOLLOWED_PACK_ATTRIBUTE, FOLLOWED_PACK_CHUNKS, followedPackChunk } from '../../src/core/model/followed-pack.js';
import { keys } from '../../src/core/model/keys.js';
import type { FollowedCelebrity } from '../../src/core/model/followed-pack.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import type { UserRef } from '../../src/core/model/user.js';

let db: TestDynamo;
let graph: FollowGraphRepository;
const AT = '2026-01-01T00:00:00.000Z';
const LATER = '2026-02-01T12:34:56.789Z';
const fan = (userId: string): UserRef => ({ tenantId: 'acme', userId });
const follows = (user: UserRef, celebrityIds: readonly string[], followedAt = AT) => celebrityIds.map((celebrityId) => ({ ...user, celebrityId, followedAt }));
const byId = (list: readonly FollowedCelebrity[]) => [...list].sort((a, b) => (a.celebrityId < b.celebrityId ? -1 : a.celebrityId > b.celebrityId ? 1 : 0));

beforeAll(async () => {
  db = await startTestDynamo();
  graph = new FollowGraphRepository(db.client, db.dynamo.tableNames.graph, { sleep: async () => undefined });
});
afterAll(async () => db?.close());

/** The stored elements of a user's pack, every chunk, sorted. */
async function packElements(user: UserRef): Promise<string[]> {
  return (await packChunks(user)).flatMap((chunk) => [...((chunk[FOLLOWED_PACK_ATTRIBUTE] as Set<string> | undefined) ?? [])]).sort();
}

async function edgeOf(user: UserRef, celebrityId: string): Promise<Record<string, unknown> | undefined> {
  return (await db.client.send(new GetCommand({ TableName: db.dynamo.tableNames.graph, Key: keys.followingCeleb(user.tenantId, user.userId, celebrityId), ConsistentRead: true }))).Item;
}

async function packChunks(user: UserRef): Promise<Record<string, unknown>[]> {
  const output = await db.client.send(new QueryCommand({ TableName: db.dynamo.tableNames.graph, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.followedCelebsPackPartition(user.tenantId, user.userId) } }));
  return output.Items ?? [];
}

describe('the followed-celebrities pack (FollowGraphRepository)', () => {
  it('writes the edge and the pack; a repeated follow changes nothing; an unfollow removes both', async () => {
    // Prepare
    const user = fan('p-fan');

    // Act
    await graph.putFollowedCelebrities(follows(user, ['star', 'idol']));
    await graph.putFollowedCelebrities(follows(user, ['star']));
    const both = await graph.listFollowedCelebrities(user);
    await graph.removeFollowedCelebrity('acme', user.userId, 'idol');
    await graph.removeFollowedCelebrity('acme', user.userId, 'idol');

    // Assess
    expect(byId(both)).toEqual([{ celebrityId: 'idol', followedAtMs: Date.parse(AT) }, { celebrityId: 'star', followedAtMs: Date.parse(AT) }]);
    expect(await graph.listFollowedCelebrities(user)).toEqual([{ celebrityId: 'star', followedAtMs: Date.parse(AT) }]);
    const edge = await db.client.send(new GetCommand({ TableName: db.dynamo.tableNames.graph, Key: keys.followingCeleb('acme', user.userId, 'idol') }));
    expect(edge.Item).toBeUndefined();
  });

  it('stores one String Set element per follow, `${followedAtMs}:${celebrityId}`, and nothing else', async () => {
    const user = fan('p-format');
    await graph.putFollowedCelebrities(follows(user, ['star', 'a:b']));
    await graph.putFollowedCelebrities(follows(user, ['star']));
    expect(await packElements(user)).toEqual([`${Date.parse(AT)}:a:b`, `${Date.parse(AT)}:star`]);
    for (const chunk of await packChunks(user)) expect(Object.keys(chunk).sort()).toEqual(['f', 'pk', 'sk']);
  });

  it('lists a celebrity with several elements (a race) once, at its latest followedAt; an unfollow removes them all', async () => {
    // Prepare: two follows of one celebrity with different times (what a race can leave), and a neighbour
    const user = fan('p-race');
    await graph.putFollowedCelebrities(follows(user, ['star', 'idol'], AT));
    await graph.putFollowedCelebrities(follows(user, ['star'], LATER));

    // Act
    const listed = await graph.listFollowedCelebrities(user);
    await graph.removeFollowedCelebrity('acme', user.userId, 'star');

    // Assess
    expect(byId(listed)).toEqual([{ celebrityId: 'idol', followedAtMs: Date.parse(AT) }, { celebrityId: 'star', followedAtMs: Date.parse(LATER) }]);
    expect(await packElements(user)).toEqual([`${Date.parse(AT)}:idol`]);
    expect(await graph.listFollowedCelebrities(user)).toEqual([{ celebrityId: 'idol', followedAtMs: Date.parse(AT) }]);
    expect(await edgeOf(user, 'star')).toBeUndefined();
  });

  it('an unfollow that crashes after the pack DELETE keeps the edge; the retry deletes it', async () => {
    // Prepare: a client whose edge DeleteItem dies (a kill between the two writes)
    const user = fan('p-crash');
    await graph.putFollowedCelebrities(follows(user, ['star', 'idol']));
    const dying = { send: (command: unknown) => (command instanceof DeleteCommand ? Promise.reject(new Error('killed before the edge delete')) : db.client.send(command as UpdateCommand)) } as unknown as DynamoDBDocumentClient;
    const crashing = new FollowGraphRepository(dying, db.dynamo.tableNames.graph);

    // Act
    const crashed = await crashing.removeFollowedCelebrity('acme', user.userId, 'star').catch((error: unknown) => error);
    const afterCrash = { listed: await graph.listFollowedCelebrities(user), edge: await edgeOf(user, 'star') };
    db.meter.reset();
    await graph.removeFollowedCelebrity('acme', user.userId, 'star');
    const retryRequests = db.meter.snapshot().byCommand;

    // Assess: the pack no longer lists it, the edge (source of truth) is still there; the retry finishes
    expect((crashed as Error).message).toContain('killed');
    expect(afterCrash.listed).toEqual([{ celebrityId: 'idol', followedAtMs: Date.parse(AT) }]);
    expect(afterCrash.edge).toBeDefined();
    expect(retryRequests).toEqual({ GetItemCommand: 1, DeleteItemCommand: 1 });
    expect(await edgeOf(user, 'star')).toBeUndefined();
    expect(await packElements(user)).toEqual([`${Date.parse(AT)}:idol`]);
  });

  it('unfollows for a user without a pack without creating an empty chunk', async () => {
    await graph.removeFollowedCelebrity('acme', 'p-never', 'star');
    expect(await packChunks(fan('p-never'))).toEqual([]);
    // A chunk without that celebrity is read, not written.
    await graph.putFollowedCelebrities(follows(fan('p-other'), ['star']));
    db.meter.reset();
    // An id of the same chunk as 'star': the GetItem reads an existing chunk that lacks it.
    const sameChunk = Array.from({ length: 64 }, (_, i) => `not-followed-${i}`).find((id) => followedPackChunk(id) === followedPackChunk('star'))!;
    await graph.removeFollowedCelebrity('acme', 'p-other', sameChunk);
    expect(db.meter.snapshot().byCommand).toEqual({ GetItemCommand: 1, DeleteItemCommand: 1 });
    expect(await graph.listFollowedCelebrities(fan('p-other'))).toEqual([{ celebrityId: 'star', followedAtMs: Date.parse(AT) }]);
    expect(await graph.listFollowedCelebrities(fan('p-never'))).toEqual([]);
  });

  it('reads 600 follows spread over every chunk in ONE Query', async () => {
    // Prepare
    const user = fan('p-many');
    const celebrities = Array.from({ length: 600 }, (_, i) => `celeb-${i}`);
    await graph.putFollowedCelebrities(follows(user, celebrities, LATER));

    // Act
    db.meter.reset();
    const listed = await graph.listFollowedCelebrities(user);

    // Assess
    expect(db.meter.snapshot().byCommand).toEqual({ QueryCommand: 1 });
    expect(listed.map((celebrity) => celebrity.celebrityId).sort()).toEqual([...celebrities].sort());
    expect(new Set(listed.map((celebrity) => celebrity.followedAtMs))).toEqual(new Set([Date.parse(LATER)]));
    expect((await packChunks(user)).map((chunk) => chunk.sk).sort()).toEqual(Array.from({ length: FOLLOWED_PACK_CHUNKS }, (_, chunk) => `C#${chunk}`));
  });

  it('keeps odd ids apart: prototype keys, @, #, :, tabs, unicode, 256 characters', async () => {
    // Prepare
    const user = fan('p-odd');
    const odd = ['__proto__', 'constructor', '@x', '@', 'pk', 'a#b', '#c', 'tab\there', 'line\nbreak', '🙂 ünï', 'x'.repeat(256), '🙂'.repeat(128), ':v0', '#a0', ':', 'a:b', '1:2', '::', `${Date.parse(AT)}:star`];

    // Act
    await graph.putFollowedCelebrities(follows(user, odd));
    await graph.removeFollowedCelebrity('acme', user.userId, '@x');
    await graph.removeFollowedCelebrity('acme', user.userId, ':');

    // Assess
    const expected = odd.filter((id) => id !== '@x' && id !== ':');
    expect(byId(await graph.listFollowedCelebrities(user))).toEqual(byId(expected.map((celebrityId) => ({ celebrityId, followedAtMs: Date.parse(AT) }))));
    expect(Object.getPrototypeOf((await packChunks(user))[0])).toBe(Object.prototype);
  });

  it('erasure DELETEs only the erased celebrity\'s elements from another user\'s chunk', async () => {
    // Prepare: a fan follows the erased user and a neighbour in the same chunk, plus a race duplicate
    const tenantId = 'pack-erase';
    const fanRef: UserRef = { tenantId, userId: 'fan' };
    const neighbour = Array.from({ length: 400 }, (_, i) => `n-${i}`).find((id) => followedPackChunk(id) === followedPackChunk('erin'))!;
    await graph.putFollowedCelebrities(follows(fanRef, ['erin', neighbour, 'erin2', 'far-away'], AT));
    await graph.putFollowedCelebrities(follows(fanRef, ['erin'], LATER));
    // The follower item the fan-out writes with it: the erasure finds its followers' packs from it.
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.graph, Item: { ...keys.follower(tenantId, 'erin', 'fan'), followedAt: AT, counted: true } }));

    // Act
    const report = await new UserEraser({ client: db.client, tables: db.dynamo.tableNames, feedShards: 1, graceMs: 0, tombstoneTtlSeconds: 60 }, { tenantId, userId: 'erin' }).run();

    // Assess
    expect(report.removed['graph.followedCelebritiesPackEntry']).toBe(2);
    expect(byId(await graph.listFollowedCelebrities(fanRef)).map((celebrity) => celebrity.celebrityId)).toEqual(['erin2', 'far-away', neighbour].sort());
    expect(await packElements(fanRef)).toEqual([`${Date.parse(AT)}:erin2`, `${Date.parse(AT)}:far-away`, `${Date.parse(AT)}:${neighbour}`].sort());
  });

  it('ignores the unreleased attribute format (`@<id>`): the v2 backfill packs the edges again', async () => {
    // Prepare: a chunk as the unreleased format wrote it, and its edge
    const user = fan('p-v1');
    const chunk = keys.followedCelebsPack('acme', user.userId, followedPackChunk('star'));
    await db.client.send(new UpdateCommand({ TableName: db.dynamo.tableNames.graph, Key: chunk, UpdateExpression: 'SET #a = :ms', ExpressionAttributeNames: { '#a': '@star' }, ExpressionAttributeValues: { ':ms': Date.parse(AT) } }));
    const before = await graph.listFollowedCelebrities(user);
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.graph, Item: { ...keys.followingCeleb('acme', user.userId, 'star'), followedAt: AT } }));

    // Act
    await backfillFollowedCelebrityPacks(db.client, db.dynamo.tableNames.graph);

    // Assess
    expect(before).toEqual([]);
    expect(await graph.listFollowedCelebrities(user)).toEqual([{ celebrityId: 'star', followedAtMs: Date.parse(AT) }]);
  });

  it('backfills packs from 0.1.0 edges, idempotently, and the local start runs it once', async () => {
    // Prepare: edges only, as 0.1.0 wrote them (a hashed-segment user id too), and a non-edge item
    const longUser = fan('ü'.repeat(200));
    const oldFans = [fan('b-one'), fan('b-two'), longUser];
    await batchPutAll(db.client, db.dynamo.tableNames.graph, [
      ...oldFans.flatMap((user, u) => Array.from({ length: 30 + u }, (_, i) => ({ ...keys.followingCeleb('acme', user.userId, `old-${i}`), followedAt: LATER }))),
      { ...keys.followingCeleb('acme', 'b-bad', 'star'), followedAt: 'not a time' },
    ]);
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.graph, Item: { ...keys.profile('acme', 'old-1'), followerCount: 3 } }));

    // Act
    const first = await backfillFollowedCelebrityPacks(db.client, db.dynamo.tableNames.graph, { pageLimit: 200 });
    const second = await backfillFollowedCelebrityPacks(db.client, db.dynamo.tableNames.graph);
    const atStart = await ensureFollowedCelebrityPacks(db.client, db.dynamo.tableNames.graph);
    const atRestart = await ensureFollowedCelebrityPacks(db.client, db.dynamo.tableNames.graph);

    // Assess
    expect(first.skipped).toBe(1);
    expect(first.pages).toBeGreaterThan(1);
    expect(second.packed).toBe(first.packed);
    expect(atStart?.packed).toBe(first.packed);
    expect(atRestart).toBeUndefined();
    for (const [u, user] of oldFans.entries()) {
      const listed = await graph.listFollowedCelebrities(user);
      expect(byId(listed)).toEqual(byId(Array.from({ length: 30 + u }, (_, i) => ({ celebrityId: `old-${i}`, followedAtMs: Date.parse(LATER) }))));
    }
    const marker = await db.client.send(new GetCommand({ TableName: db.dynamo.tableNames.graph, Key: keys.migrationMarker(FOLLOWED_PACK_MIGRATION) }));
    expect(marker.Item?.doneAt).toEqual(expect.any(String));
  });
  it('reports a follow whose chunk is over the 400 KB item limit instead of retrying it', async () => {
    // Prepare: one chunk written close to 400 KB (a filler the reader ignores: not a time), room for about one more long id
    const user = fan('p-full');
    const chunk = followedPackChunk('full-target');
    const key = keys.followedCelebsPack('acme', user.userId, chunk);
    const fillerName = '@filler';
    const room = 400;
    const fillerBytes = 409_600 - room - ['pk', key.pk, 'sk', key.sk, fillerName].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.graph, Item: { ...key, [fillerName]: 'x'.repeat(fillerBytes) } }));
    const filler: string[] = [];
    for (let i = 0; filler.length < 3; i += 1) {
      const id = `${'f'.repeat(250)}-${i}`;
      if (followedPackChunk(id) === chunk) filler.push(id);
    }
    const reported: string[] = [];
    const warned = new FollowGraphRepository(db.client, db.dynamo.tableNames.graph, { onPackFull: (entries) => reported.push(...entries.map((entry) => entry.celebrityId)) });

    // Act
    const thrown = await graph.putFollowedCelebrities(follows(user, filler)).catch((error: unknown) => error);
    await warned.putFollowedCelebrities(follows(user, [...filler, 'other-chunk-star']));

    // Assess: what fits is stored, the rest is named; the edges hold every follow
    expect(thrown).toBeInstanceOf(FollowedPackFullError);
    expect((thrown as Error).message).toContain('400 KB');
    // The batch of three failed as a whole; one by one, the first still fit in the room left.
    expect(reported).toHaveLength(filler.length - 1);
    const listed = new Set((await graph.listFollowedCelebrities(user)).map((celebrity) => celebrity.celebrityId));
    expect(listed.has('other-chunk-star')).toBe(true);
    expect(reported.every((id) => !listed.has(id))).toBe(true);
    expect(listed.size + reported.length).toBe(filler.length + 1);
    const edges = await db.client.send(new QueryCommand({ TableName: db.dynamo.tableNames.graph, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.followingCelebsPartition('acme', user.userId) } }));
    expect(edges.Items).toHaveLength(filler.length + 1);
  });
});
