/** Keys parsed back: every kind keys.ts builds round-trips through parseKey, hostile ids included; anything else parses to nothing. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keys, keySegment, type TableKey } from '../../src/core/model/keys.js';
import { erasureRecordId } from '../../src/core/privacy/erasure.js';
import { isKeyIdOf, parseKey, parseKeySegment, type KeyId, type ParsedKey } from '../../src/core/model/key-parsing.js';

/** What the parse of a key built from `value` holds: the segment, and the id unless it was hashed. */
const idOf = (value: string): KeyId => {
  const segment = keySegment('id', value);
  return segment.startsWith('~') ? { segment } : { segment, value };
};

const HOSTILE_IDS = [
  'alice',
  '__proto__',
  'constructor',
  '#',
  'a#b',
  '%',
  '%41',
  'a%23b',
  ':',
  'a:b',
  '~x',
  '\uFEFFbom',
  'Zoë 🙂',
  'ünï',
  '🙂'.repeat(128),
  'x'.repeat(256),
  `|${'x'.repeat(255)}`,
  'a',
  'ab',
  'ba',
  'U',
  'F',
  'P',
  'T',
  'S0',
  'FOLLOWERS',
  'FOLLOWING_CELEBS',
  'PROFILE',
  'CHANNELS',
  'ONLINE',
  'READMARK',
  'PRESENCE',
  'CONN',
  'C#1',
  'READ#x',
  'auth0|64f1c2',
];

const ULID = '01JD0000000000000000000000';
const DEVICE = 'd_abcdefghijklmnopqrstuv';

/** Every builder of keys.ts with the parse it must give back, for tenant `t`, users `u` and `v`. */
function cases(t: string, u: string, v: string): Array<[string, TableKey | { id: string }, ParsedKey]> {
  const tenantId = idOf(t);
  const user = { tenantId, userId: idOf(u) };
  const idKey = (id: string) => ({ id });
  return [
    ['inboxItem', keys.inboxItem(t, u, ULID), { kind: 'inboxItem', ...user, notificationId: ULID }],
    ['feedItem', keys.feedItem(t, u, 3, ULID), { kind: 'feedItem', tenantId, actorId: idOf(u), shard: 3, notificationId: ULID }],
    ['retraction', keys.retraction(t, 'mention.created', `e#${v}`, 1_700_000_000_000), { kind: 'retraction', tenantId, arrivalMs: 1_700_000_000_000, type: 'mention.created', eventId: `e#${v}` }],
    ['postsLogEntry', { pk: keys.recentPostsPartition(t, u), sk: ULID }, { kind: 'postsLogEntry', tenantId, authorId: idOf(u), postId: ULID }],
    ['celebrityPost', { pk: keys.celebrityPostsPartition(t, 7), sk: ULID }, { kind: 'celebrityPost', tenantId, shard: 7, notificationId: ULID }],
    ['celebrityPostsIndexSlot', keys.celebrityPostsIndexSlot(keys.celebrityPostsIndexPartition(t, 2), '01JD000000'), { kind: 'celebrityPostsIndexSlot', tenantId, shard: 2, slot: '01JD000000', overflow: 0 }],
    ['celebrityPostsIndexSlot overflow', keys.celebrityPostsIndexSlot(keys.celebrityPostsIndexPartition(t, 0), '01JD000000', 3), { kind: 'celebrityPostsIndexSlot', tenantId, shard: 0, slot: '01JD000000', overflow: 3 }],
    ['readMark', keys.readMark(t, u), { kind: 'readMark', ...user }],
    ['readException', keys.readException(t, u, ULID), { kind: 'readException', ...user, notificationId: ULID }],
    ['itemState', keys.itemState(t, u, ULID), { kind: 'itemState', ...user, notificationId: ULID }],
    ['lateArrival', keys.lateArrival(t, u, ULID), { kind: 'lateArrival', ...user, notificationId: ULID }],
    ['connection', keys.connection(t, u, 'Ab_c='), { kind: 'connection', ...user, connectionId: 'Ab_c=' }],
    ['presence', keys.presence(t, u), { kind: 'presence', ...user }],
    ['connectionReverse', keys.connectionReverse('Ab_c='), { kind: 'connectionReverse', connectionId: 'Ab_c=' }],
    ['onlineSubscription', keys.onlineSubscription(t, u, 5, 'xyz'), { kind: 'onlineSubscription', tenantId, actorId: idOf(u), shard: 5, connectionId: 'xyz' }],
    ['follower', keys.follower(t, u, v), { kind: 'follower', tenantId, followeeId: idOf(u), followerId: v }],
    ['alertSubscriber', keys.alertSubscriber(t, u, v), { kind: 'alertSubscriber', tenantId, accountId: idOf(u), followerId: v }],
    ['alertingEntry', keys.alerting(t, u, v), { kind: 'alertingEntry', ...user, accountId: v }],
    ['smsUserDay', idKey(keys.smsUserDayId(t, u, 1_764_115_200_000)), { kind: 'channelRateWindow', ...user, channel: 'smsday', windowStartMs: 1_764_115_200_000 }],
    ['smsOptOut', idKey(keys.smsOptOutId('+14155550123')), { kind: 'smsOptOut', digest: keys.smsOptOutId('+14155550123').slice('SMS#OPTOUT#'.length) }],
    ['smsSpendDay', idKey(keys.smsSpendDayId(1_764_115_200_000)), { kind: 'smsSpendDay', dayStartMs: 1_764_115_200_000 }],
    ['smsAnswer', idKey(keys.smsAnswerId('+14155550123', 'help', 1_764_115_200_000)), { kind: 'smsAnswer', digest: keys.smsOptOutId('+14155550123').slice('SMS#OPTOUT#'.length), keyword: 'help', dayStartMs: 1_764_115_200_000 }],
    ['followingCeleb', keys.followingCeleb(t, u, v), { kind: 'followingCeleb', ...user, celebrityId: v }],
    ['followedCelebsPack', keys.followedCelebsPack(t, u, 7), { kind: 'followedCelebsPack', ...user, chunk: 7 }],
    ['profile', keys.profile(t, u), { kind: 'profile', ...user }],
    ['preferences', keys.preferences(t, u), { kind: 'preferences', ...user }],
    ['device', { pk: keys.channelStatePartition(t, u), sk: keys.deviceSortKey(DEVICE) }, { kind: 'device', ...user, deviceId: DEVICE }],
    ['channelState', { pk: keys.channelStatePartition(t, u), sk: 'EMAIL_OFF#mention.created' }, { kind: 'channelState', ...user, item: 'EMAIL_OFF#mention.created' }],
    ['migrationMarker', keys.migrationMarker('followed-celebs-pack-v2'), { kind: 'migrationMarker', name: 'followed-celebs-pack-v2' }],
    ['deliveryRecord', idKey(keys.deliveryRecordId(ULID, 'c-1')), { kind: 'deliveryRecord', notificationId: ULID, connectionId: 'c-1' }],
    ['deliveryStep', idKey(keys.deliveryStepId(ULID, 'split')), { kind: 'deliveryStep', notificationId: ULID, step: 'split' }],
    ['arrivalRecord', idKey(keys.arrivalRecordId(t, 'post.published', `${v}#x`)), { kind: 'arrivalRecord', tenantId, type: 'post.published', eventId: `${v}#x` }],
    ['rateWindow', idKey(keys.rateWindowId(t, u, 1_700_000_000_000)), { kind: 'rateWindow', ...user, windowStartMs: 1_700_000_000_000 }],
    ['liveHold', idKey(keys.liveHoldId(t, u, 1_700_000_060_000)), { kind: 'liveHold', ...user, releaseAtMs: 1_700_000_060_000 }],
    ['channelSend', idKey(keys.channelSendId(t, u, 'email', ULID)), { kind: 'channelSend', ...user, channel: 'email', notificationId: ULID }],
    ['channelSend to a device', idKey(keys.channelSendId(t, u, 'push', ULID, DEVICE)), { kind: 'channelSend', ...user, channel: 'push', notificationId: ULID, deviceId: DEVICE }],
    ['channelRateWindow', idKey(keys.channelRateWindowId(t, u, 'push', 0)), { kind: 'channelRateWindow', ...user, channel: 'push', windowStartMs: 0 }],
    ['user trace', idKey(keys.traceRecordId(t, u, 'gate', `${v}#TRACE#x`)), { kind: 'traceRecord', ...user, stage: 'gate', eventId: `${v}#TRACE#x` }],
    ['event trace', idKey(keys.traceRecordId(t, undefined, 'intake', v)), { kind: 'traceRecord', tenantId, stage: 'intake', eventId: v }],
    ['erasureRecord', idKey(keys.erasureRecordId(t, 'A'.repeat(43))), { kind: 'erasureRecord', tenantId, digest: 'A'.repeat(43) }],
    ['auditSalt', idKey(keys.auditSaltId(t, u)), { kind: 'auditSalt', ...user }],
    ['fanOutIdempotencyRecord', idKey('fanout#rL0Y20zC+Fzt72VPzMSk2A=='), { kind: 'fanOutIdempotencyRecord', hash: 'rL0Y20zC+Fzt72VPzMSk2A==' }],
  ];
}

describe('parseKey', () => {
  it('round-trips every key kind keys.ts builds, for hostile tenant and user ids', () => {
    const kinds = new Set<string>();
    for (const [index, u] of HOSTILE_IDS.entries()) {
      const t = HOSTILE_IDS[(index + 7) % HOSTILE_IDS.length]!;
      const v = HOSTILE_IDS[(index + 1) % HOSTILE_IDS.length]!;
      for (const [name, key, expected] of cases(t, u, v)) {
        kinds.add(expected.kind);
        expect({ name, u, parsed: parseKey(key) }).toEqual({ name, u, parsed: expected });
      }
    }
    // Every kind of the union is covered by a builder above.
    expect(kinds.size).toBe(38);
  });

  it('tells apart ids that are prefixes, suffixes or escapes of each other, and key tokens used as ids', () => {
    const users = ['a', 'ab', 'ba', 'a#b', 'a%23b', 'FOLLOWERS', 'U', 'x'.repeat(256), `|${'x'.repeat(255)}`, `|${'x'.repeat(254)}y`];
    for (const u of users) {
      const parsed = parseKey(keys.inboxItem('acme', u, ULID));
      expect(parsed?.kind === 'inboxItem' && users.filter((other) => isKeyIdOf(parsed.userId, other))).toEqual([u]);
    }
    // The user `FOLLOWERS` owns an inbox; the followers of `x` are another partition.
    expect(parseKey(keys.inboxItem('acme', 'FOLLOWERS', ULID))?.kind).toBe('inboxItem');
    expect(parseKey({ pk: keys.followersPartition('acme', 'x'), sk: 'FOLLOWERS' })).toEqual({ kind: 'follower', tenantId: idOf('acme'), followeeId: idOf('x'), followerId: 'FOLLOWERS' });
    // A user-level trace of the user `E` is not an event trace.
    expect(parseKey({ id: keys.traceRecordId('acme', 'E', 'gate', 'e1') })).toMatchObject({ kind: 'traceRecord', userId: idOf('E') });
  });

  it('parses nothing it did not build: unknown kinds, damaged or non-canonical segments, wrong sort keys', () => {
    const foreign: Array<Record<string, unknown>> = [
      {},
      { pk: 'T#acme#U#alice' },
      { pk: 1, sk: 'x' },
      { id: 'T#acme#U#alice', pk: 'x' },
      { pk: 'T#acme#U#alice', sk: 'NOT-A-ULID' },
      { pk: 'T#acme#U#alice', sk: '01J' },
      { pk: 'T#acme#U#alice#NEWKIND', sk: 'x' },
      { pk: 'T#acme#X#alice', sk: ULID },
      { pk: 'T#acme', sk: ULID },
      { pk: 'T##U#alice', sk: ULID },
      { pk: 'T#acme#U#%41', sk: ULID },
      { pk: 'T#acme#U#%C3', sk: ULID },
      { pk: 'T#acme#U#a b', sk: ULID },
      { pk: `T#acme#U#${'x'.repeat(257)}`, sk: ULID },
      { pk: 'T#acme#U#~short', sk: ULID },
      { pk: 'T#acme#F#star#S01', sk: ULID },
      { pk: 'T#acme#F#star', sk: ULID },
      { pk: 'T#acme#U#alice#FOLLOWED_CELEBS_PACK', sk: 'C#8' },
      { pk: 'T#acme#U#alice#PROFILE', sk: 'OTHER' },
      { pk: 'T#acme#U#alice#CHANNELS', sk: 'DEVICE#nope' },
      { pk: 'T#acme#U#alice#ONLINE#S1', sk: 'X#c' },
      { pk: 'T#acme#CPX#S1', sk: '01JD000000#0' },
      { pk: 'T#acme#RETRACTIONS', sk: '1#mention.created#e' },
      { pk: 'CONN#a#b', sk: 'CONN' },
      { pk: 'MIGRATION#Bad', sk: 'MIGRATION' },
      { id: 'DLV#01J#bad#conn!' },
      { id: 'fanout#short' },
      { id: 'fanout-other#rL0Y20zC+Fzt72VPzMSk2A==' },
      { id: 'T#acme#U#alice#RATE#1.5' },
      { id: 'T#acme#U#alice#HOLD' },
      { id: 'T#acme#U#alice#SEND#push#01J#not-a-device' },
      { id: 'T#acme#U#alice#SECRET#x' },
      { id: 'T#acme#ERASED#short' },
      { id: 'T#acme#E#TRACE' },
      { id: 'powertools#anything' },
    ];
    for (const key of foreign) expect({ key, parsed: parseKey(key) }).toEqual({ key, parsed: undefined });
  });

  it('reads back any identifier a key segment can hold (generated ids)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 256 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (user, tenant) => {
        fc.pre([...user].length > 0 && user.length <= 256 && tenant.length <= 256 && !/[\uD800-\uDFFF]/.test(user.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')));
        const parsed = parseKey({ id: keys.liveHoldId(tenant, user, 5) });
        expect(parsed).toEqual({ kind: 'liveHold', tenantId: idOf(tenant), userId: idOf(user), releaseAtMs: 5 });
        expect(parseKeySegment(keySegment('id', user))).toEqual(idOf(user));
      }),
      { numRuns: 300 },
    );
  });

  it('keys the erasure tombstone through keys.ts', () => {
    const id = erasureRecordId({ tenantId: 'acme', userId: 'al' });
    expect(parseKey({ id })).toMatchObject({ kind: 'erasureRecord', tenantId: idOf('acme') });
  });
});
