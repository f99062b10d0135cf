/** Which stored items and schedules name a user, by key kind and role (never by value), and the tombstone's id. */
import { describe, expect, it } from 'vitest';
import { erasureRecordId, userPartitions, type ErasureSubject } from '../../src/core/privacy/erasure.js';
import { classifySchedule, classifyStoredItem, type ItemVerdict } from '../../src/core/privacy/erasure-roles.js';
import { keys } from '../../src/core/model/keys.js';
import type { TableName } from '../../src/table-specs.js';
import { findNotificationType } from '../../src/notifications/index.js';
import { eventBridgeBody } from '../support/events.js';

const al = { tenantId: 'acme', userId: 'al' };
const ULID = '01JD0000000000000000000000';
const verdictOf = (table: TableName, item: Record<string, unknown>, subject: ErasureSubject = al): string => {
  const verdict: ItemVerdict = classifyStoredItem(table, item, subject);
  return `${verdict.action} ${verdict.kind}`;
};

describe('classifyStoredItem: what belongs to the user or names them in a role', () => {
  it.each<[string, TableName, Record<string, unknown>, string]>([
    ['their inbox item', 'inbox', { ...keys.inboxItem('acme', 'al', ULID), actor: { id: 'bo' } }, 'delete inboxItem'],
    ['their feed shard item', 'inbox', { ...keys.feedItem('acme', 'al', 3, ULID), actor: { id: 'al' } }, 'delete feedItem'],
    ['their recent posts log entry', 'inbox', { pk: keys.recentPostsPartition('acme', 'al'), sk: ULID }, 'delete postsLogEntry'],
    ['their celebrity post in the tenant log', 'inbox', { pk: keys.celebrityPostsPartition('acme', 1), sk: ULID, authorId: 'al', actor: { id: 'al' } }, 'delete celebrityPost'],
    ['their read mark', 'readMarks', { ...keys.readMark('acme', 'al') }, 'delete readMark'],
    ['their single read', 'readMarks', { ...keys.readException('acme', 'al', ULID) }, 'delete readException'],
    ['their edge in a followee partition', 'graph', { ...keys.follower('acme', 'bo', 'al'), counted: true }, 'delete followingEdge'],
    ['a follower edge of theirs', 'graph', { ...keys.follower('acme', 'al', 'bo') }, 'delete followerEdge'],
    ['a follower\'s FOLLOWING_CELEBS edge to them', 'graph', { ...keys.followingCeleb('acme', 'bo', 'al'), followedAt: 'x' }, 'delete followerOfCelebrity'],
    ['their alert subscription under another account', 'graph', { ...keys.alertSubscriber('acme', 'bo', 'al'), subscribedAt: 'x' }, 'delete alertSubscription'],
    ['an alert subscriber of theirs (the account is gone)', 'graph', { ...keys.alertSubscriber('acme', 'al', 'bo'), subscribedAt: 'x' }, 'delete alertSubscriber'],
    ['their reference to an alert subscription', 'graph', { ...keys.alerting('acme', 'al', 'bo'), subscribedAt: 'x' }, 'delete alertingEntry'],
    ['a subscriber\'s reference to alerts of theirs', 'graph', { ...keys.alerting('acme', 'bo', 'al'), subscribedAt: 'x' }, 'delete alertingEntryOfSubscriber'],
    ['their device', 'graph', { pk: keys.channelStatePartition('acme', 'al'), sk: keys.deviceSortKey('d_abcdefghijklmnopqrstuv'), token: 't' }, 'delete device'],
    ['their email address', 'graph', { pk: keys.channelStatePartition('acme', 'al'), sk: 'EMAIL', address: 'a@b.c' }, 'delete channelState'],
    ['their preferences', 'graph', { ...keys.preferences('acme', 'al'), timeZone: 'UTC' }, 'delete preferences'],
    ['a notification they authored in another inbox', 'inbox', { ...keys.inboxItem('acme', 'bo', ULID), actor: { id: 'al', name: 'Al' } }, 'delete authoredNotification'],
    ['their connection reverse item', 'connections', { ...keys.connectionReverse('abc='), tenantId: 'acme', userId: 'al' }, 'delete connectionReverse'],
    ['their subscription to a celebrity', 'connections', { ...keys.onlineSubscription('acme', 'star', 1, 'c1'), userId: 'al' }, 'delete onlineSubscription'],
    ['a follower\'s subscription to them', 'connections', { ...keys.onlineSubscription('acme', 'al', 1, 'c1'), userId: 'bo' }, 'delete onlineSubscriber'],
    ['a hold record', 'idempotency', { id: keys.liveHoldId('acme', 'al', 1) }, 'delete liveHold'],
    ['a channel send record', 'idempotency', { id: keys.channelSendId('acme', 'al', 'email', ULID) }, 'delete channelSend'],
    ['a trace of theirs', 'idempotency', { id: keys.traceRecordId('acme', 'al', 'gate', 'e1'), trace: { userId: 'al' } }, 'delete traceRecord'],
    ['their audit pseudonym salt', 'idempotency', { id: keys.auditSaltId('acme', 'al'), salt: 'x' }, 'delete auditSalt'],
    ['an event trace about their feed (actorId)', 'idempotency', { id: keys.traceRecordId('acme', undefined, 'fanout', 'e1'), trace: { actorId: 'al', detail: 'written to 4 feed shards of al' } }, 'delete eventTrace'],
  ])('deletes %s', (_name, table, item, expected) => {
    expect(verdictOf(table, item)).toBe(expected);
  });

  it.each<[string, TableName, Record<string, unknown>, ErasureSubject, string]>([
    // The two data-loss cases of issue 27: a value equal to the id is not a role.
    ['a bystander\'s notification whose data.postId is the id', 'inbox', { ...keys.inboxItem('acme', 'bo', ULID), actor: { id: 'cy' }, title: 'p42 mentioned', data: { postId: 'p42' } }, { tenantId: 'acme', userId: 'p42' }, 'keep inboxItem'],
    ['a bystander\'s preferences holding timeZone "UTC"', 'graph', { ...keys.preferences('acme', 'bo'), timeZone: 'UTC', mutedTypes: ['UTC'] }, { tenantId: 'acme', userId: 'UTC' }, 'keep preferences'],
    ['a type name as user id', 'inbox', { ...keys.inboxItem('acme', 'bo', ULID), type: 'mention.created', actor: { id: 'cy' } }, { tenantId: 'acme', userId: 'mention.created' }, 'keep inboxItem'],
    ['a longer id sharing the prefix', 'inbox', { ...keys.inboxItem('acme', 'alice', ULID), actor: { id: 'alice' } }, al, 'keep inboxItem'],
    ['the same id in another tenant', 'inbox', { ...keys.inboxItem('other', 'al', ULID), actor: { id: 'al' } }, al, 'keep otherTenant'],
    ['an event trace naming them in its text only', 'idempotency', { id: keys.traceRecordId('acme', undefined, 'fanout', 'e1'), trace: { detail: 'written to 4 feed shards of al; followers read it' } }, al, 'keep eventTrace'],
    ['another user\'s trace whose text names them', 'idempotency', { id: keys.traceRecordId('acme', 'bo', 'gate', 'e1'), trace: { userId: 'bo', detail: 'al' } }, al, 'keep traceRecord'],
    ['an arrival record of an event id equal to theirs', 'idempotency', { id: keys.arrivalRecordId('acme', 'mention.created', 'al') }, al, 'keep arrivalRecord'],
    ['a delivery dedup record', 'idempotency', { id: keys.deliveryRecordId(ULID, 'al') }, al, 'keep deliveryRecord'],
    ['the erasure tombstone', 'idempotency', { id: erasureRecordId(al), status: 'done' }, al, 'keep erasureRecord'],
    ['another user\'s audit salt', 'idempotency', { id: keys.auditSaltId('acme', 'alice'), salt: 'x' }, al, 'keep auditSalt'],
    ['a retraction of an event id equal to theirs', 'inbox', { ...keys.retraction('acme', 'mention.created', 'al', 1), eventId: 'al' }, al, 'keep retraction'],
    ['another user\'s connection reverse item', 'connections', { ...keys.connectionReverse('abc='), tenantId: 'acme', userId: 'bo', celebrityIds: ['star'] }, al, 'keep connectionReverse'],
    ['a connection of the same user id in another tenant', 'connections', { ...keys.connectionReverse('abc='), tenantId: 'other', userId: 'al' }, al, 'keep otherTenant'],
    ['the user `PROFILE`: another user\'s profile', 'graph', { ...keys.profile('acme', 'bo'), followerCount: 3 }, { tenantId: 'acme', userId: 'PROFILE' }, 'keep profile'],
    ['another pair\'s alert subscription and its reference', 'graph', { ...keys.alertSubscriber('acme', 'bo', 'alice'), subscribedAt: 'al' }, al, 'keep alertSubscriber'],
    ['another subscriber\'s reference to an account with a longer id', 'graph', { ...keys.alerting('acme', 'bo', 'alice') }, al, 'keep alertingEntry'],
    ['a migration marker', 'graph', { ...keys.migrationMarker('celebrity-posts-index'), indexed: 3 }, al, 'keep migrationMarker'],
  ])('keeps %s', (_name, table, item, subject, expected) => {
    expect(verdictOf(table, item, subject)).toBe(expected);
  });

  it('keeps items of unknown kind (never a guess): no kind of keys.ts, or a kind in the wrong table', () => {
    expect(classifyStoredItem('inbox', { pk: 'T#acme#U#al#NEWKIND', sk: 'x', owner: 'al' }, al)).toMatchObject({ action: 'unknown' });
    expect(classifyStoredItem('graph', { ...keys.inboxItem('acme', 'al', ULID) }, al)).toMatchObject({ action: 'unknown', reason: 'a inboxItem key in the graph table' });
    expect(classifyStoredItem('idempotency', { id: 'something-else#al', userId: 'al' }, al)).toMatchObject({ action: 'unknown' });
    expect(classifyStoredItem('connections', { ...keys.connectionReverse('abc=') }, al)).toMatchObject({ action: 'unknown' });
  });

  it('finds hostile ids only where they are: `__proto__`, `#`, key tokens, unicode, hashed long ids', () => {
    for (const userId of ['__proto__', 'a#b', 'U', 'FOLLOWERS', 'Zoë 🙂', `|${'x'.repeat(255)}`]) {
      const subject = { tenantId: 'acme', userId };
      expect(verdictOf('inbox', { ...keys.inboxItem('acme', userId, ULID), actor: { id: 'bo' } }, subject)).toBe('delete inboxItem');
      expect(verdictOf('inbox', { ...keys.inboxItem('acme', 'bo', ULID), actor: { id: 'cy' }, data: { [userId]: userId } }, subject)).toBe('keep inboxItem');
      expect(verdictOf('graph', { ...keys.follower('acme', 'bo', userId), counted: true }, subject)).toBe('delete followingEdge');
      expect(verdictOf('idempotency', { id: keys.rateWindowId('acme', userId, 5) }, subject)).toBe('delete rateWindow');
    }
  });
});

describe('classifyStoredItem: shared items lose only the user\'s parts', () => {
  it('another user\'s held pushes of notifications the user authored, highest index first, each guarded by its actor', () => {
    const push = (actor: string) => ({ notification: { actor: { id: actor }, data: { postId: 'al' } }, priority: 'urgent', failClosedHolds: 0 });
    const verdict = classifyStoredItem('idempotency', { id: keys.liveHoldId('acme', 'bo', 1), held: [push('al'), push('cy'), push('al')] }, al);
    expect(verdict).toEqual({
      action: 'removeParts',
      kind: 'heldPush',
      parts: { kind: 'heldPush', remove: [{ path: ['held', 2], guard: ['held', 2, 'notification', 'actor', 'id'] }, { path: ['held', 0], guard: ['held', 0, 'notification', 'actor', 'id'] }] },
    });
    expect(verdictOf('idempotency', { id: keys.liveHoldId('acme', 'bo', 1), held: [push('cy')] })).toBe('keep liveHold');
  });

  it('a connection\'s list of followed celebrities, the fan-out result of a tier change, a pack chunk, a count index slot', () => {
    expect(classifyStoredItem('connections', { ...keys.connectionReverse('abc='), tenantId: 'acme', userId: 'bo', celebrityIds: ['star', 'al'] }, al)).toMatchObject({
      action: 'removeParts',
      parts: { remove: [{ path: ['celebrityIds', 1], guard: ['celebrityIds', 1] }] },
    });
    expect(classifyStoredItem('idempotency', { id: 'fanout#rL0Y20zC+Fzt72VPzMSk2A==', status: 'COMPLETED', data: { tierChange: { userId: 'al', from: 'ordinary', to: 'celebrity' } } }, al)).toMatchObject({
      action: 'removeParts',
      kind: 'fanOutResultAccount',
    });
    expect(verdictOf('idempotency', { id: 'fanout#rL0Y20zC+Fzt72VPzMSk2A==', data: { inboxItems: 1, note: 'al' } })).toBe('keep fanOutIdempotencyRecord');
    expect(classifyStoredItem('graph', { ...keys.followedCelebsPack('acme', 'bo', 2), f: new Set(['1:al', '2:alice']) }, al)).toMatchObject({
      action: 'removeParts',
      parts: { setElements: [{ attribute: 'f', elements: ['1:al'] }] },
    });
    const slot = { ...keys.celebrityPostsIndexSlot(keys.celebrityPostsIndexPartition('acme', 0), '01JD000000'), [ULID]: JSON.stringify(['al', 'post.published', 9]), '01JD0000000000000000000001': JSON.stringify(['bo', 'al', 9]) };
    expect(classifyStoredItem('inbox', slot, al)).toMatchObject({ action: 'removeParts', parts: { remove: [{ path: [ULID] }] } });
  });
});

describe('classifySchedule: by the roles in its payload', () => {
  const release = (userId: string) => JSON.stringify({ v: 1, kind: 'live-release', tenantId: 'acme', userId, releaseAtMs: 5 });
  const job = (actor: string, recipients: string[]) =>
    JSON.stringify({ v: 1, tenantId: 'acme', eventId: 'e', priority: 'urgent', notification: { type: 'mention.created', createdAt: 'x', actor: { id: actor }, title: 't', body: 'al', data: { postId: 'al' } }, target: { kind: 'recipients', recipients: recipients.map((userId) => ({ userId, notificationId: ULID })) }, sig: 's' });
  const sendAt = (detailType: string, detail: Record<string, unknown>) => eventBridgeBody(detailType, { id: 'e1', tenantId: 'acme', sendAt: '2030-01-01T00:00:00Z', ...detail });

  it.each<[string, string, string]>([
    ['their quiet-hours release', release('al'), 'delete heldUser'],
    ['another user\'s release', release('bo'), 'keep heldUser'],
    ['their snooze comeback', job('bo', ['al']), 'delete recipient'],
    ['a job they authored for someone else', job('al', ['bo']), 'delete actor'],
    ['a job for someone else whose text and data hold the id', job('bo', ['cy']), 'keep recipient'],
    ['a sendAt event they authored', sendAt('mention.created', { actor: { id: 'al' }, recipients: ['bo'], data: { postId: 'x', excerpt: 'y' } }), 'delete actor'],
    ['a sendAt event for them alone', sendAt('mention.created', { actor: { id: 'bo' }, recipients: ['al'], data: { postId: 'x', excerpt: 'y' } }), 'delete recipient'],
    ['a sendAt event for them among others', sendAt('mention.created', { actor: { id: 'bo' }, recipients: ['al', 'cy'], data: { postId: 'x', excerpt: 'y' } }), 'keep recipientAmongOthers'],
    ['a sendAt event whose data names them', sendAt('mention.created', { actor: { id: 'bo' }, recipients: ['cy'], data: { postId: 'al', excerpt: 'al' } }), 'keep recipient'],
    ['a sendAt follow of them (followee from the catalog)', sendAt('follow.created', { actor: { id: 'bo' }, data: { followeeId: 'al' } }), 'delete followee'],
    ['a sendAt post to their followers', sendAt('post.published', { actor: { id: 'bo' }, audience: { followersOf: 'al' }, data: { postId: 'p', title: 't' } }), 'delete followersOf'],
    ['a sendAt event of another tenant', eventBridgeBody('mention.created', { id: 'e', tenantId: 'other', actor: { id: 'al' }, recipients: ['al'], data: {} }), 'keep otherTenant'],
  ])('%s', (_name, payload, expected) => {
    const verdict = classifySchedule(payload, al, findNotificationType);
    expect(`${verdict.action} ${verdict.role}`).toBe(expected);
  });

  it('keeps a payload of unknown kind', () => {
    for (const payload of ['not json', '42', '{"kind":"other","userId":"al"}', JSON.stringify({ target: { kind: 'x' }, tenantId: 'acme' })]) {
      expect(classifySchedule(payload, al).action).toBe('unknown');
    }
  });
});

describe('the erasure plan', () => {
  it('deletes each of the user\'s own partitions, feed shards included, and keys the tombstone by a hash', () => {
    const partitions = userPartitions(al, 2).map((partition) => `${partition.table} ${partition.pk}`);
    expect(partitions).toContain(`inbox ${keys.feedShardPartition('acme', 'al', 1)}`);
    expect(partitions).toContain(`graph ${keys.followersPartition('acme', 'al')}`);
    expect(partitions).toContain(`graph ${keys.alertSubscribersPartition('acme', 'al')}`);
    expect(partitions).toContain(`graph ${keys.alertingPartition('acme', 'al')}`);
    expect(erasureRecordId(al)).not.toContain('al#');
    expect(erasureRecordId(al)).toMatch(/^T#acme#ERASED#[A-Za-z0-9_-]{43}$/);
  });

  it('takes the recipient\'s read state (and the late arrival\'s marker) of a notification the user authored along with it', () => {
    const item = { ...keys.inboxItem('acme', 'bo', ULID), actor: { id: 'al' } };
    expect(classifyStoredItem('inbox', item, al)).toEqual({ action: 'delete', kind: 'authoredNotification', readStateReferences: [keys.readException('acme', 'bo', ULID), keys.itemState('acme', 'bo', ULID), keys.lateArrival('acme', 'bo', ULID)] });
    expect(classifyStoredItem('graph', { ...keys.follower('acme', 'bo', 'al') }, al)).toMatchObject({ followeeProfile: keys.profile('acme', 'bo') });
  });
});
