import { describe, expect, it } from 'vitest';
import { followedPackAttributeNamingUser, isOthersFollowedPack, scannedItemKind, userPartitions } from '../../src/core/erasure.js';
import { celebrityIdOfPackAttribute, FOLLOWED_PACK_CHUNKS, followedAtMs, followedPackAttribute, followedPackChunk } from '../../src/core/followed-pack.js';
import { keys, tenantKeyPrefix } from '../../src/core/keys.js';
import { parseStartKey } from '../../src/ops/migrate.js';

describe('the followed-celebrities pack', () => {
  it('places a celebrity in a stable chunk in range, spread evenly', () => {
    // Pinned: a change of the hash would strand every stored entry in the wrong chunk.
    expect(['star', 'idol', '__proto__', '🙂', 'a'.repeat(256)].map(followedPackChunk)).toEqual([5, 6, 0, 5, 5]);
    const counts = new Array<number>(FOLLOWED_PACK_CHUNKS).fill(0);
    for (let i = 0; i < 8_000; i += 1) {
      const chunk = followedPackChunk(`celeb-${i}`);
      expect(Number.isInteger(chunk) && chunk >= 0 && chunk < FOLLOWED_PACK_CHUNKS).toBe(true);
      counts[chunk]! += 1;
    }
    expect(Math.min(...counts)).toBeGreaterThan(850);
    expect(Math.max(...counts)).toBeLessThan(1_150);
  });

  it('names an attribute per celebrity that round-trips and is never a key name or __proto__', () => {
    for (const id of ['star', '__proto__', '@x', 'pk', 'a#b', 'tab\there', '🙂']) {
      const name = followedPackAttribute(id);
      expect(name.startsWith('@')).toBe(true);
      expect(celebrityIdOfPackAttribute(name)).toBe(id);
    }
    expect([celebrityIdOfPackAttribute('pk'), celebrityIdOfPackAttribute('sk'), celebrityIdOfPackAttribute('@')]).toEqual([undefined, undefined, undefined]);
    expect(followedAtMs('2026-01-01T00:00:00.000Z')).toBe(Date.UTC(2026, 0, 1));
    expect(() => followedAtMs('yesterday')).toThrow(RangeError);
  });

  it('keys chunks in a tenant-led partition next to the edges, and only chunks 0 to 7', () => {
    expect(keys.followedCelebsPack('acme', 'alice', 3)).toEqual({ pk: 'T#acme#U#alice#FOLLOWED_CELEBS_PACK', sk: 'C#3' });
    expect(keys.followedCelebsPackPartition('acme', 'alice').startsWith(`${tenantKeyPrefix('acme')}#`)).toBe(true);
    expect(keys.followedCelebsPackOfEdgePartition(keys.followingCelebsPartition('acme', 'a#b'), 7)).toEqual(keys.followedCelebsPack('acme', 'a#b', 7));
    expect(keys.followedCelebsPackOfEdgePartition(keys.followersPartition('acme', 'alice'), 0)).toBeUndefined();
    expect(() => keys.followedCelebsPack('acme', 'alice', 8)).toThrow(RangeError);
    expect(() => keys.followedCelebsPack('acme', 'alice', 1.5)).toThrow(RangeError);
    expect(() => keys.migrationMarker('Bad#Name')).toThrow();
  });

  it('erases the user\'s own pack whole and only their attribute from a follower\'s pack', () => {
    const erin = { tenantId: 'acme', userId: 'erin' };
    expect(userPartitions(erin, 1)).toContainEqual({ table: 'graph', pk: keys.followedCelebsPackPartition('acme', 'erin'), kind: 'followedCelebritiesPack' });
    const fansChunk = { ...keys.followedCelebsPack('acme', 'fan', 2), '@erin': 1, '@other': 2 };
    expect(followedPackAttributeNamingUser(fansChunk, erin)).toBe('@erin');
    expect(followedPackAttributeNamingUser(fansChunk, { tenantId: 'acme', userId: 'nobody' })).toBeUndefined();
    expect(followedPackAttributeNamingUser(fansChunk, { tenantId: 'other', userId: 'erin' })).toBeUndefined();
    expect(isOthersFollowedPack(fansChunk, { tenantId: 'acme', userId: 'C#2' })).toBe(true);
    const ownChunk = { ...keys.followedCelebsPack('acme', 'erin', 0), '@star': 1 };
    expect([isOthersFollowedPack(ownChunk, erin), followedPackAttributeNamingUser(ownChunk, erin)]).toEqual([false, undefined]);
    expect(scannedItemKind('graph', ownChunk)).toBe('followedCelebritiesPack');
  });

  it('resumes the migration only from a key a previous run printed', () => {
    expect(parseStartKey('{"pk":"T#acme#U#a#FOLLOWING_CELEBS","sk":"star","x":1}')).toEqual({ pk: 'T#acme#U#a#FOLLOWING_CELEBS', sk: 'star' });
    expect(() => parseStartKey('nope')).toThrow('--start-key');
    expect(() => parseStartKey('{"pk":1,"sk":"a"}')).toThrow('--start-key');
    expect(() => parseStartKey('[]')).toThrow('--start-key');
  });
});
