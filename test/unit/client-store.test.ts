import { describe, expect, it } from 'vitest';
import { InboxStore, idJustBelow, lowestIdAt, timeOfId, type Notification } from '../../src/client/index.js';
import type { Notification as ServerNotification } from '../../src/core/model/notification.js';
import { notificationId } from '../../src/core/model/ids.js';
import { aClientNotification } from '../support/client-fakes.js';
import { SECOND, T0 } from '../support/fixtures.js';

describe('ULID time helpers of the client', () => {
  it('decode the same time as the server ids and bound them from below', () => {
    // Prepare
    const id = notificationId({ tenantId: 'acme', type: 'mention.created', eventId: 'e', recipient: 'alice', timeMs: T0 + 1234 });

    // Act / Assess
    expect(timeOfId(id)).toBe(T0 + 1234);
    expect(lowestIdAt(T0 + 1234) <= id).toBe(true);
    expect(lowestIdAt(T0 + 1235) > id).toBe(true);
  });

  it('steps an id down to the greatest id below it, so since=<it> starts exactly at the id', () => {
    const id = notificationId({ tenantId: 'acme', type: 'mention.created', eventId: 'e', recipient: 'alice', timeMs: T0 });
    const below = idJustBelow(id)!;

    expect(below < id).toBe(true);
    expect(below).toHaveLength(26);
    expect(idJustBelow('01ARZ3NDEKTSV4RRFFQ69G5FAW')).toBe('01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(idJustBelow('01ARZ3NDEKTSV4RRFFQ69G5FA0')).toBe('01ARZ3NDEKTSV4RRFFQ69G5F9Z');
    expect(idJustBelow('01ARZ3NDEKTSV4RRFFQ69G5F00')).toBe('01ARZ3NDEKTSV4RRFFQ69G5EZZ');
    expect(idJustBelow('0'.repeat(26))).toBeUndefined();
  });

  it('uses the contract Notification shape (the server type is assignable to the client type)', () => {
    const fromServer: ServerNotification = aClientNotification(T0);
    const inClient: Notification = fromServer;
    expect(inClient.id).toBe(fromServer.id);
  });
});

describe('InboxStore', () => {
  it('keeps each id once, newest first, whatever order and path items arrive by', () => {
    // Prepare
    const store = new InboxStore();
    const [a, b, c] = [aClientNotification(T0), aClientNotification(T0 + SECOND), aClientNotification(T0 + 2 * SECOND)];

    // Act
    const firstAdded = store.merge([b!, a!]);
    const secondAdded = store.merge([c!, b!, a!]);
    const thirdAdded = store.merge([c!]);

    // Assess
    expect(firstAdded.map((item) => item.id)).toEqual([b!.id, a!.id]);
    expect(secondAdded.map((item) => item.id)).toEqual([c!.id]);
    expect(thirdAdded).toEqual([]);
    expect(store.list().map((item) => item.id)).toEqual([c!.id, b!.id, a!.id]);
    expect(store.newestId()).toBe(c!.id);
  });

  it('returns the same list array until something changes', () => {
    const store = new InboxStore();
    store.merge([aClientNotification(T0)]);
    const first = store.list();
    store.merge([aClientNotification(T0)]);
    expect(store.list()).toBe(first);
    store.merge([aClientNotification(T0 + 1)]);
    expect(store.list()).not.toBe(first);
  });

  it('lets read/seen only move forward when a stale copy arrives', () => {
    // Prepare
    const store = new InboxStore();
    const item = aClientNotification(T0);
    store.merge([{ ...item, read: true, seen: true }]);

    // Act: an older page still says unread
    store.merge([item]);

    // Assess
    expect(store.get(item.id)).toMatchObject({ read: true, seen: true });
  });

  it('applies a read mark by the time in the id, and to items that arrive later', () => {
    // Prepare
    const store = new InboxStore();
    const before = aClientNotification(T0);
    const after = aClientNotification(T0 + 10 * SECOND);
    store.merge([before, after]);

    // Act
    store.applyReadMark(new Date(T0 + 5 * SECOND).toISOString());
    const late = aClientNotification(T0 + 2 * SECOND, 'late');
    store.merge([late]);

    // Assess
    expect(store.get(before.id)).toMatchObject({ read: true, seen: true });
    expect(store.get(after.id)).toMatchObject({ read: false, seen: false });
    expect(store.get(late.id)).toMatchObject({ read: true, seen: true });
  });

  it('applies a seen mark without marking anything read, and ignores a mark that moves back', () => {
    const store = new InboxStore();
    const item = aClientNotification(T0);
    store.merge([item]);

    expect(store.applySeenMark(new Date(T0 + SECOND).toISOString())).toBe(true);
    expect(store.applySeenMark(new Date(T0 - SECOND).toISOString())).toBe(false);

    expect(store.get(item.id)).toMatchObject({ read: false, seen: true });
  });

  it('counts live arrivals up to the cap and then says capped', () => {
    // Prepare
    const store = new InboxStore(3);
    store.setCounts({ unread: 2, unseen: 1, capped: false });

    // Act
    store.countArrivals([aClientNotification(T0), aClientNotification(T0 + 1), { ...aClientNotification(T0 + 2), read: true, seen: true }]);

    // Assess
    expect(store.counts).toEqual({ unread: 3, unseen: 3, capped: true });
  });

  it('recomputes counts from held items after a single read', () => {
    const store = new InboxStore();
    const [a, b] = [aClientNotification(T0), aClientNotification(T0 + 1)];
    store.merge([a!, b!]);

    const before = store.applySingleRead(a!.id);

    expect(before).toMatchObject({ read: false });
    expect(store.countsFromHeld()).toEqual({ unread: 1, unseen: 1, capped: false });
    expect(store.applySingleRead('01ZZZZZZZZZZZZZZZZZZZZZZZZ')).toBeUndefined();
  });
});
