import { describe, expect, it } from 'vitest';
import { InboxStore } from '../../src/client/index.js';
import { aClientNotification } from '../support/client-fakes.js';
import { SECOND, T0 } from '../support/fixtures.js';

describe('InboxStore: inbox actions', () => {
  it('removes archived / deleted / snoozed / retracted ids and keeps the newest id right', () => {
    // Prepare
    const store = new InboxStore();
    const [older, newer] = [aClientNotification(T0), aClientNotification(T0 + SECOND)];
    store.merge([older!, newer!]);

    // Act
    const removed = store.remove([newer!.id, 'not-held']);

    // Assess
    expect(removed.map((item) => item.id)).toEqual([newer!.id]);
    expect(store.list().map((item) => item.id)).toEqual([older!.id]);
    expect(store.newestId()).toBe(older!.id);
  });

  it('marks unread (still seen), seen one, read one; archive-all-read drops only the read ones', () => {
    // Prepare
    const store = new InboxStore();
    const items = [aClientNotification(T0), aClientNotification(T0 + SECOND), aClientNotification(T0 + 2 * SECOND)];
    store.merge(items);
    store.applyReadMark(new Date(T0 + SECOND).toISOString());

    // Act
    store.applyUnread([items[0]!.id]);
    store.applySeen([items[2]!.id]);
    const archived = store.removeRead();

    // Assess
    expect(archived).toEqual([items[1]!.id]);
    expect(store.list().map((item) => [item.id, item.read, item.seen])).toEqual([
      [items[2]!.id, false, true],
      [items[0]!.id, false, true],
    ]);
    store.applyRead([items[2]!.id]);
    expect(store.get(items[2]!.id)).toMatchObject({ read: true, seen: true });
  });
});
