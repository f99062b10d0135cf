/** Which stored items name a user (the erasure's scans), and the tombstone's id. */
import { describe, expect, it } from 'vitest';
import { erasureRecordId, followeeProfileOfOutgoingEdge, itemNamesUser, userPartitions } from '../../src/core/privacy/erasure.js';
import { keys } from '../../src/core/model/keys.js';

const al = { tenantId: 'acme', userId: 'al' };

describe('itemNamesUser', () => {
  it.each([
    ['their inbox item', { ...keys.inboxItem('acme', 'al', '01J'), actor: { id: 'bo' } }],
    ['their feed shard item', { ...keys.feedItem('acme', 'al', 3, '01J') }],
    ['their edge in a followee partition', { ...keys.follower('acme', 'bo', 'al'), counted: true }],
    ['an item they authored in another inbox', { ...keys.inboxItem('acme', 'bo', '01J'), actor: { id: 'al', name: 'Al' } }],
    ['a connection reverse item', { ...keys.connectionReverse('abc='), tenantId: 'acme', userId: 'al' }],
    ['a hold record', { id: keys.liveHoldId('acme', 'al', 1) }],
    ['a Powertools result holding the id', { id: 'fanout#hash', data: { tierChange: { userId: 'al' } } }],
    ['a trace naming them in its text', { id: keys.traceRecordId('acme', undefined, 'fanout', 'e1'), trace: { detail: 'written to 4 feed shards of al; followers read it' } }],
  ])('finds %s', (_name, item) => {
    expect(itemNamesUser(item, al)).toBe(true);
  });

  it.each([
    ['a longer id sharing the prefix', { ...keys.inboxItem('acme', 'alice', '01J'), actor: { id: 'alice' } }],
    ['the same id in another tenant', { ...keys.inboxItem('other', 'al', '01J'), actor: { id: 'al' } }],
    ['a trace naming a longer id', { id: keys.traceRecordId('acme', undefined, 'fanout', 'e1'), trace: { detail: 'feed shards of al-x' } }],
    ['the erasure tombstone', { id: erasureRecordId(al), status: 'done' }],
  ])('leaves %s', (_name, item) => {
    expect(itemNamesUser(item, al)).toBe(false);
  });
});

describe('the erasure plan', () => {
  it('lowers the count of the followee of an outgoing edge, not of the user themself', () => {
    expect(followeeProfileOfOutgoingEdge({ ...keys.follower('acme', 'bo', 'al') }, al)).toEqual(keys.profile('acme', 'bo'));
    expect(followeeProfileOfOutgoingEdge({ ...keys.follower('acme', 'al', 'bo') }, al)).toBeUndefined();
    expect(followeeProfileOfOutgoingEdge({ ...keys.followingCeleb('acme', 'bo', 'al') }, al)).toBeUndefined();
  });

  it('deletes each of the user\'s own partitions, feed shards included, and keys the tombstone by a hash', () => {
    const partitions = userPartitions(al, 2).map((partition) => `${partition.table} ${partition.pk}`);
    expect(partitions).toContain(`inbox ${keys.feedShardPartition('acme', 'al', 1)}`);
    expect(partitions).toContain(`graph ${keys.followersPartition('acme', 'al')}`);
    expect(erasureRecordId(al)).not.toContain('al#');
    expect(erasureRecordId(al)).toMatch(/^T#acme#ERASED#[A-Za-z0-9_-]{43}$/);
  });
});
