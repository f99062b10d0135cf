import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { currentRun, type FollowRecordKind } from '../../src/core/model/follow-history.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let db: TestDynamo;
let graph: FollowGraphRepository;
const AT = '2026-01-01T00:00:00.000Z';
const AT_MS = Date.parse(AT);

beforeAll(async () => {
  db = await startTestDynamo();
  graph = new FollowGraphRepository(db.client, db.dynamo.tableNames.graph, { sleep: async () => undefined });
});
afterAll(async () => db?.close());

/** What the follow effect does with a pair, without the fan-out around it: record, count as the history says, release. */
async function apply(followerId: string, followeeId: string, kind: FollowRecordKind, atMs = AT_MS, owner = `${kind}-${followerId}-${atMs}`) {
  const pair = { tenantId: 'acme', followeeId, followerId };
  const state = await graph.recordFollowChange({ ...pair, record: { atMs, kind }, owner });
  if (state.heldBy !== owner) return { state, profile: undefined };
  const run = currentRun(state.history);
  const profile = state.counted !== run.following ? await graph.countPair('acme', followeeId, owner, run.following ? 1 : -1) : (await graph.profileForPair('acme', followeeId, owner)).profile;
  await graph.releasePair({ ...pair, owner, counted: run.following, run, compact: [] });
  await graph.forgetCountClaim('acme', followeeId, owner);
  return { state, profile };
}

describe('FollowGraphRepository', () => {
  it('counts a pair once however often its follow is retried, and keeps its history by arrival', async () => {
    await apply('f1', 'once', 'follow');
    const again = await apply('f1', 'once', 'follow');
    expect(again.state).toMatchObject({ recordWasNew: false, counted: true });
    expect(again.profile).toEqual({ followerCount: 1, tier: 'ordinary' });
    expect((await graph.listFollowersPage('acme', 'once', undefined, 10)).followers).toEqual([{ followerId: 'f1', followedAt: AT, history: [{ atMs: AT_MS, kind: 'follow' }] }]);
  });

  it('a count an attempt made before dying is not made again by its retry (the claim on the count item)', async () => {
    // Prepare: the first attempt counts, then dies before storing `counted`
    const pair = { tenantId: 'acme', followeeId: 'retried', followerId: 'f1' };
    await graph.recordFollowChange({ ...pair, record: { atMs: AT_MS, kind: 'follow' }, owner: 'owner-1' });
    await graph.countPair('acme', 'retried', 'owner-1', 1);

    // Act: the retry of the same event
    const state = await graph.recordFollowChange({ ...pair, record: { atMs: AT_MS, kind: 'follow' }, owner: 'owner-1' });
    const profile = await graph.countPair('acme', 'retried', 'owner-1', 1);
    const claimed = await graph.profileForPair('acme', 'retried', 'owner-1');
    await graph.releasePair({ ...pair, owner: 'owner-1', counted: true, run: currentRun(state.history), compact: [] });
    await graph.forgetCountClaim('acme', 'retried', 'owner-1');

    // Assess
    expect(state).toMatchObject({ heldBy: 'owner-1', resumed: true, counted: false });
    expect(profile.followerCount).toBe(1);
    expect(claimed.claimLeft).toBe(true);
    expect((await graph.profileForPair('acme', 'retried', 'owner-1')).claimLeft).toBe(false);
  });

  it('holds a pair for one event at a time: another event writes nothing until the holder lets it go', async () => {
    const pair = { tenantId: 'acme', followeeId: 'held', followerId: 'f1' };
    const first = await graph.recordFollowChange({ ...pair, record: { atMs: AT_MS, kind: 'follow' }, owner: 'a' });
    const second = await graph.recordFollowChange({ ...pair, record: { atMs: AT_MS + 5, kind: 'unfollow' }, owner: 'b' });
    const [whileHeld] = (await graph.listFollowersPage('acme', 'held', undefined, 10)).followers;
    await expect(graph.releasePair({ ...pair, owner: 'b', counted: false, run: { following: false }, compact: [] })).rejects.toThrow();
    await graph.releasePair({ ...pair, owner: 'a', counted: true, run: currentRun(first.history), compact: [] });
    const third = await graph.recordFollowChange({ ...pair, record: { atMs: AT_MS + 5, kind: 'unfollow' }, owner: 'b' });
    expect([first.heldBy, third.heldBy]).toEqual(['a', 'b']);
    // DynamoDB names the holder (ALL_OLD on a failed condition); dynalite returns no item, so it stays unnamed.
    expect(['a', 'another event']).toContain(second.heldBy);
    expect(second).toMatchObject({ history: [], recordWasNew: false });
    // The held history did not grow under its holder.
    expect(whileHeld?.history).toEqual([{ atMs: AT_MS, kind: 'follow' }]);
    expect(third.history).toEqual([{ atMs: AT_MS, kind: 'follow' }, { atMs: AT_MS + 5, kind: 'unfollow' }]);
  });

  it('a follow retried after the later unfollow leaves no count and an unfollow marker (with its TTL), listed with its history', async () => {
    await apply('f1', 'undone', 'unfollow', AT_MS + 10);
    const late = await apply('f1', 'undone', 'follow', AT_MS);
    expect(late.profile).toEqual({ followerCount: 0, tier: 'ordinary' });
    const [marker] = (await graph.listFollowersPage('acme', 'undone', undefined, 10)).followers;
    expect(marker).toEqual({ followerId: 'f1', history: [{ atMs: AT_MS, kind: 'follow' }, { atMs: AT_MS + 10, kind: 'unfollow' }] });
  });

  it('uncounts an unfollowed pair once', async () => {
    await apply('f1', 'gone', 'follow');
    await apply('f2', 'gone', 'follow');
    expect((await apply('f1', 'gone', 'unfollow', AT_MS + 1)).profile).toMatchObject({ followerCount: 1 });
    expect((await apply('f1', 'gone', 'unfollow', AT_MS + 1)).profile).toMatchObject({ followerCount: 1 });
  });

  it('changes the tier only from the expected tier', async () => {
    expect(await graph.changeTier('acme', 'tiered', { from: 'ordinary', to: 'celebrity' })).toBe(true);
    expect(await graph.changeTier('acme', 'tiered', { from: 'ordinary', to: 'celebrity' })).toBe(false);
    expect((await graph.getProfile('acme', 'tiered')).tier).toBe('celebrity');
    expect(await graph.changeTier('acme', 'tiered', { from: 'celebrity', to: 'ordinary' })).toBe(true);
  });

  it('changes the tier only while the count still calls for it, and remembers a promotion', async () => {
    // Prepare: two followers
    await apply('f1', 'guarded', 'follow');
    await apply('f2', 'guarded', 'follow');

    // Act + Assess: a stale decision (count fell below the bound) does not flip
    expect(await graph.changeTier('acme', 'guarded', { from: 'ordinary', to: 'celebrity', countAtLeast: 3 })).toBe(false);
    expect(await graph.changeTier('acme', 'guarded', { from: 'ordinary', to: 'celebrity', countAtLeast: 2 })).toBe(true);
    expect(await graph.changeTier('acme', 'guarded', { from: 'celebrity', to: 'ordinary', countBelow: 2 })).toBe(false);
    expect(await graph.changeTier('acme', 'guarded', { from: 'celebrity', to: 'ordinary', countBelow: 3 })).toBe(true);
    expect(await graph.getProfile('acme', 'guarded')).toEqual({ followerCount: 2, tier: 'ordinary', everCelebrity: true });
    expect((await apply('f3', 'guarded', 'follow')).profile).toMatchObject({ followerCount: 3, tier: 'ordinary', everCelebrity: true });
  });

  it('pages through followers in order with one Query per page', async () => {
    for (let i = 0; i < 7; i += 1) await apply(`u${i}`, 'paged', 'follow');
    db.meter.reset();
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await graph.listFollowersPage('acme', 'paged', after, 3);
      seen.push(...page.followers.map((follower) => follower.followerId));
      after = page.next;
      pages += 1;
    } while (after !== undefined);
    expect(seen).toEqual(['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6']);
    expect(db.meter.snapshot().byCommand).toEqual({ QueryCommand: pages });
  });

  it('lists written FOLLOWING_CELEBS for the read side and removes one', async () => {
    await graph.putFollowedCelebrities([
      { tenantId: 'acme', userId: 'fan', celebrityId: 'star', followedAt: AT },
      { tenantId: 'acme', userId: 'fan', celebrityId: 'idol', followedAt: AT },
    ]);
    await graph.removeFollowedCelebrity('acme', 'fan', 'idol');
    expect(await graph.listFollowedCelebrities({ tenantId: 'acme', userId: 'fan' })).toEqual([{ celebrityId: 'star', followedAtMs: Date.parse(AT) }]);
  });
});
