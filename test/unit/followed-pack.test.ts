import { describe, expect, it } from 'vitest';
import { sharedItemPartCount, sharedPartsUpdates, userPartitions } from '../../src/core/privacy/erasure.js';
import { classifyStoredItem } from '../../src/core/privacy/erasure-roles.js';
import {
  decodeFollowedPack,
  decodeFollowedPackElement,
  encodeFollowedPackElement,
  FOLLOWED_PACK_ATTRIBUTE,
  FOLLOWED_PACK_CHUNKS,
  followedAtMs,
  followedPackChunk,
  followedPackElementsOf,
} from '../../src/core/model/followed-pack.js';
import { keys, tenantKeyPrefix } from '../../src/core/model/keys.js';
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

  it('encodes one set element per follow, time first, that round-trips for odd ids', () => {
    const odd = ['star', '__proto__', 'constructor', ':', 'a:b', '::', '1:2', 'tab\there', 'line\nbreak', '@x', 'pk', 'a#b', '🙂 ünï', 'x'.repeat(256), '🙂'.repeat(128)];
    for (const id of odd) {
      const element = encodeFollowedPackElement(id, 1_767_225_600_000);
      expect(element.startsWith('1767225600000:')).toBe(true);
      expect(decodeFollowedPackElement(element)).toEqual({ celebrityId: id, followedAtMs: 1_767_225_600_000 });
    }
    expect(decodeFollowedPackElement(encodeFollowedPackElement('early', -1_000))).toEqual({ celebrityId: 'early', followedAtMs: -1_000 });
    expect(() => encodeFollowedPackElement('star', 1.5)).toThrow(RangeError);
    expect(() => encodeFollowedPackElement('', 1)).toThrow(RangeError);
    expect(followedAtMs('2026-01-01T00:00:00.000Z')).toBe(Date.UTC(2026, 0, 1));
    expect(() => followedAtMs('yesterday')).toThrow(RangeError);
  });

  it('skips a damaged element instead of throwing', () => {
    const damaged = ['', 'star', ':star', '12:', 'x1:star', '1e3:star', '1.5:star', ' 1:star', '99999999999999999:star', '--1:star', 42, null, { celebrityId: 'star' }];
    for (const element of damaged) expect(decodeFollowedPackElement(element)).toBeUndefined();
    const chunk = { ...keys.followedCelebsPack('acme', 'fan', 0), [FOLLOWED_PACK_ATTRIBUTE]: new Set(['nonsense', '5:ok', ':bad']) };
    expect(decodeFollowedPack([chunk])).toEqual([{ celebrityId: 'ok', followedAtMs: 5 }]);
    // The unreleased attribute format (`@<id>` = ms) is dead: ignored, never read as a follow.
    expect(decodeFollowedPack([{ ...keys.followedCelebsPack('acme', 'fan', 1), '@star': 5, f: 'not a set' }])).toEqual([]);
  });

  it('lists a celebrity with several elements (a race) once, at its LATEST followedAt', () => {
    const chunks = [
      { [FOLLOWED_PACK_ATTRIBUTE]: new Set(['100:star', '300:star', '200:star', '100:idol']) },
      { [FOLLOWED_PACK_ATTRIBUTE]: new Set(['50:star', '7:__proto__']) },
    ];
    const listed = decodeFollowedPack(chunks).sort((a, b) => a.celebrityId.localeCompare(b.celebrityId));
    expect(listed).toEqual([{ celebrityId: '__proto__', followedAtMs: 7 }, { celebrityId: 'idol', followedAtMs: 100 }, { celebrityId: 'star', followedAtMs: 300 }]);
    // The unfollow names every element of the celebrity, and only those (a prefix of another id is not it).
    const chunk = { [FOLLOWED_PACK_ATTRIBUTE]: new Set(['100:star', '300:star', '100:star:2', '100:sta', 'junk']) };
    expect(followedPackElementsOf(chunk, 'star').sort()).toEqual(['100:star', '300:star']);
    expect(followedPackElementsOf({}, 'star')).toEqual([]);
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

  it('erases the user\'s own pack whole and only their elements from a follower\'s pack', () => {
    const erin = { tenantId: 'acme', userId: 'erin' };
    expect(userPartitions(erin, 1)).toContainEqual({ table: 'graph', pk: keys.followedCelebsPackPartition('acme', 'erin'), kind: 'followedCelebritiesPack' });
    const fansChunk = { ...keys.followedCelebsPack('acme', 'fan', 2), [FOLLOWED_PACK_ATTRIBUTE]: new Set(['1:erin', '3:erin', '2:other', '4:erin2', '5:erin:x']) };
    const shared = classifyStoredItem('graph', fansChunk, erin);
    expect(shared).toEqual({
      action: 'removeParts',
      kind: 'followedCelebritiesPackEntry',
      parts: { kind: 'followedCelebritiesPackEntry', remove: [], setElements: [{ attribute: 'f', elements: expect.arrayContaining(['1:erin', '3:erin']) }] },
    });
    expect(shared.action === 'removeParts' && sharedItemPartCount(shared.parts)).toBe(2);
    expect(classifyStoredItem('graph', fansChunk, { tenantId: 'acme', userId: 'nobody' })).toEqual({ action: 'keep', kind: 'followedCelebsPack' });
    expect(classifyStoredItem('graph', fansChunk, { tenantId: 'other', userId: 'erin' })).toEqual({ action: 'keep', kind: 'otherTenant' });
    // The sort key `C#2` is not a user: the user `C#2` is not in it.
    expect(classifyStoredItem('graph', fansChunk, { tenantId: 'acme', userId: 'C#2' })).toEqual({ action: 'keep', kind: 'followedCelebsPack' });
    // A chunk of the unreleased attribute format (dev data dirs) loses the user's `@<id>` attribute too
    const legacyChunk = { ...keys.followedCelebsPack('acme', 'fan', 3), '@erin': 1, '@other': 2 };
    expect(classifyStoredItem('graph', legacyChunk, erin)).toMatchObject({ action: 'removeParts', parts: { remove: [{ path: ['@erin'] }] } });
    expect(classifyStoredItem('graph', legacyChunk, { tenantId: 'other', userId: 'erin' })).toEqual({ action: 'keep', kind: 'otherTenant' });
    const ownChunk = { ...keys.followedCelebsPack('acme', 'erin', 0), [FOLLOWED_PACK_ATTRIBUTE]: new Set(['1:star']) };
    expect(classifyStoredItem('graph', ownChunk, erin)).toEqual({ action: 'delete', kind: 'followedCelebritiesPack' });
  });

  it('resumes the migration only from a key a previous run printed', () => {
    expect(parseStartKey('{"pk":"T#acme#U#a#FOLLOWING_CELEBS","sk":"star","x":1}')).toEqual({ pk: 'T#acme#U#a#FOLLOWING_CELEBS', sk: 'star' });
    expect(() => parseStartKey('nope')).toThrow('--start-key');
    expect(() => parseStartKey('{"pk":1,"sk":"a"}')).toThrow('--start-key');
    expect(() => parseStartKey('[]')).toThrow('--start-key');
  });

  it('takes a shared item\'s parts out in updates of at most 100: REMOVE of paths (guarded list elements), DELETE of set elements, names as placeholders', () => {
    const [mixed, ...none] = sharedPartsUpdates({ remove: [{ path: ['@erin'] }, { path: ['__proto__'] }], setElements: [{ attribute: 'f', elements: ['1:erin', '3:erin'] }], kind: 'followedCelebritiesPackEntry' }, 'erin');
    expect(none).toEqual([]);
    expect(mixed).toEqual({ expression: 'REMOVE #n0, #n1 DELETE #n2 :d0', names: { '#n0': '@erin', '#n1': '__proto__', '#n2': 'f' }, values: { ':d0': new Set(['1:erin', '3:erin']) } });
    const many = sharedPartsUpdates({ remove: Array.from({ length: 150 }, (_, i) => ({ path: [`id-${i}`] })), kind: 'celebrityPostIndexEntry' }, 'erin');
    expect(many.map((update) => Object.keys(update.names).length)).toEqual([100, 50]);
    expect(many.every((update) => update.values === undefined && update.condition === undefined && update.expression.startsWith('REMOVE '))).toBe(true);
    expect(sharedPartsUpdates({ remove: [], kind: 'x' }, 'erin')).toEqual([]);
    const [list] = sharedPartsUpdates({ remove: [{ path: ['held', 2], guard: ['held', 2, 'notification', 'actor', 'id'] }, { path: ['held', 0], guard: ['held', 0, 'notification', 'actor', 'id'] }], kind: 'heldPush' }, 'erin');
    expect(list).toEqual({
      expression: 'REMOVE #n0[2], #n0[0]',
      condition: '#n0[2].#n1.#n2.#n3 = :user AND #n0[0].#n1.#n2.#n3 = :user',
      names: { '#n0': 'held', '#n1': 'notification', '#n2': 'actor', '#n3': 'id' },
      values: { ':user': 'erin' },
    });
  });
});
