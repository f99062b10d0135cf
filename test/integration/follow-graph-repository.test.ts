import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let db: TestDynamo;
let graph: FollowGraphRepository;
const AT = '2026-01-01T00:00:00.000Z';
const edge = (followerId: string, followeeId: string, followedAt = AT) => ({ tenantId: 'acme', followeeId, followerId, followedAt });

beforeAll(async () => {
  db = await startTestDynamo();
  graph = new FollowGraphRepository(db.client, db.dynamo.tableNames.graph, { sleep: async () => undefined });
});
afterAll(async () => db?.close());

describe('FollowGraphRepository', () => {
  it('counts an edge once however often the follow is retried, and keeps the first followedAt', async () => {
    await graph.addFollower(edge('f1', 'once'));
    const again = await graph.addFollower(edge('f1', 'once', '2026-06-01T00:00:00.000Z'));
    expect(again).toEqual({ followerCount: 1, tier: 'ordinary', followedAt: AT });
    expect((await graph.listFollowersPage('acme', 'once', undefined, 10)).followers).toEqual([{ followerId: 'f1', followedAt: AT }]);
  });

  it('counts an edge whose first attempt failed after the follower item was written', async () => {
    // Prepare: the ADD of the first attempt fails
    let failAdd = true;
    db.client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { UpdateExpression?: string };
        if (failAdd && (context.commandName === 'UpdateCommand' || context.commandName === 'UpdateItemCommand') && input.UpdateExpression?.startsWith('ADD')) {
          failAdd = false;
          throw new Error('injected failure');
        }
        return next(args);
      },
      { step: 'initialize', name: 'failFirstAdd', override: true },
    );

    // Act
    await expect(graph.addFollower(edge('f1', 'retried'))).rejects.toThrow('injected failure');
    const profile = await graph.addFollower(edge('f1', 'retried'));
    db.client.middlewareStack.remove('failFirstAdd');

    // Assess
    expect(profile.followerCount).toBe(1);
  });

  it('uncounts a removed edge once', async () => {
    await graph.addFollower(edge('f1', 'gone'));
    await graph.addFollower(edge('f2', 'gone'));
    expect(await graph.removeFollower('acme', 'gone', 'f1')).toMatchObject({ followerCount: 1 });
    expect(await graph.removeFollower('acme', 'gone', 'f1')).toMatchObject({ followerCount: 1 });
  });

  it('changes the tier only from the expected tier', async () => {
    expect(await graph.changeTier('acme', 'tiered', { from: 'ordinary', to: 'celebrity' })).toBe(true);
    expect(await graph.changeTier('acme', 'tiered', { from: 'ordinary', to: 'celebrity' })).toBe(false);
    expect((await graph.getProfile('acme', 'tiered')).tier).toBe('celebrity');
    expect(await graph.changeTier('acme', 'tiered', { from: 'celebrity', to: 'ordinary' })).toBe(true);
  });

  it('changes the tier only while the count still calls for it, and remembers a promotion', async () => {
    // Prepare: two followers
    await graph.addFollower(edge('f1', 'guarded'));
    await graph.addFollower(edge('f2', 'guarded'));

    // Act + Assess: a stale decision (count fell below the bound) does not flip
    expect(await graph.changeTier('acme', 'guarded', { from: 'ordinary', to: 'celebrity', countAtLeast: 3 })).toBe(false);
    expect(await graph.changeTier('acme', 'guarded', { from: 'ordinary', to: 'celebrity', countAtLeast: 2 })).toBe(true);
    expect(await graph.changeTier('acme', 'guarded', { from: 'celebrity', to: 'ordinary', countBelow: 2 })).toBe(false);
    expect(await graph.changeTier('acme', 'guarded', { from: 'celebrity', to: 'ordinary', countBelow: 3 })).toBe(true);
    expect(await graph.getProfile('acme', 'guarded')).toEqual({ followerCount: 2, tier: 'ordinary' });
    expect(await graph.addFollower(edge('f3', 'guarded'))).toMatchObject({ followerCount: 3, tier: 'ordinary', everCelebrity: true });
  });

  it('pages through followers in order with one Query per page', async () => {
    for (let i = 0; i < 7; i += 1) await graph.addFollower(edge(`u${i}`, 'paged'));
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
