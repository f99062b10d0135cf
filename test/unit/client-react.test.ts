/**
 * The React entry (`serverless-notifications/client/react`): the external stores the hooks read
 * (snapshot identity, subscriptions, the shared preferences load), and a server render of the
 * hooks and the bell + feed components over a client loaded from the fake inbox server.
 */
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createInboxClient, type NotificationPreferences, type PreferencesInput } from '../../src/client/index.js';
import { InboxProvider, NotificationBell, NotificationFeed, badgeText, countsStore, unseenBadgeText, inboxStateStore, preferencesStore, storesOf, useCounts, useInbox, usePreferences } from '../../src/client/react.js';
import { FakeClock, FakeInboxServer, aClientNotification } from '../support/client-fakes.js';
import { SECOND, T0 } from '../support/fixtures.js';

function aLoadedClient(count: number) {
  const clock = new FakeClock(T0 + 3_600 * SECOND);
  const server = new FakeInboxServer(clock);
  server.add(...Array.from({ length: count }, (_, index) => aClientNotification(T0 + index * SECOND, `evt-${index}`)));
  const client = createInboxClient({ httpUrl: 'http://inbox.test', wsUrl: 'ws://inbox.test', token: 'token-1', fetch: server.fetch, clock, live: false, pageSize: 2 });
  return { client, server };
}

const stored: NotificationPreferences = { timeZone: 'Europe/Berlin', quietHours: null, mutedTypes: [], liveDelivery: {}, updatedAt: '2026-11-21T09:00:00.000Z' };
const input: PreferencesInput = { timeZone: 'UTC', quietHours: { start: '22:00', end: '07:00' }, mutedTypes: ['post.published'], liveDelivery: {} };

/** A preferences source whose answers the test releases one by one. */
function controlledPreferences() {
  const pendingGets: Array<{ resolve(value: NotificationPreferences): void; reject(error: Error): void }> = [];
  const saved: PreferencesInput[] = [];
  let failSave = false;
  const source = {
    getPreferences: () => new Promise<NotificationPreferences>((resolve, reject) => pendingGets.push({ resolve, reject })),
    savePreferences: async (body: PreferencesInput) => {
      if (failSave) throw new Error('409 conflict');
      saved.push(body);
      return { ...body, updatedAt: '2026-11-24T10:00:00.000Z' };
    },
  };
  return { source, pendingGets, saved, failSaves: () => (failSave = true) };
}

describe('inbox external stores', () => {
  it('notify subscribers on every change and keep one snapshot object between changes', async () => {
    // Prepare
    const { client } = aLoadedClient(3);
    const store = inboxStateStore(client);
    let notified = 0;
    const unsubscribe = store.subscribe(() => (notified += 1));

    // Act
    await client.start();
    const first = store.getSnapshot();
    const again = store.getSnapshot();
    const notifiedAfterStart = notified;
    unsubscribe();
    await client.loadMore();

    // Assess
    expect(notifiedAfterStart).toBeGreaterThan(0);
    expect(again).toBe(first);
    expect(first.notifications).toHaveLength(2);
    expect(notified).toBe(notifiedAfterStart);
    expect(store.getSnapshot().notifications).toHaveLength(3);
  });

  it('counts keep their snapshot through a page load and change with the badge', async () => {
    // Prepare
    const { client } = aLoadedClient(3);
    const store = countsStore(client);
    await client.start();
    const before = store.getSnapshot();

    // Act
    await client.loadMore();
    const afterPage = store.getSnapshot();
    await client.refreshCounts();
    const afterEqualRefresh = store.getSnapshot();
    await client.markAllSeen();

    // Assess
    expect(before).toEqual({ unread: 3, unseen: 3, capped: false });
    expect(afterPage).toBe(before);
    expect(afterEqualRefresh).toBe(before);
    expect(store.getSnapshot()).toEqual({ unread: 3, unseen: 0, capped: false });
  });

  it('gives one client one set of stores', () => {
    const { client } = aLoadedClient(0);
    const other = aLoadedClient(0).client;
    expect(storesOf(client)).toBe(storesOf(client));
    expect(storesOf(client).preferences).not.toBe(storesOf(other).preferences);
  });
});

describe('preferences store', () => {
  it('shares one load between callers and keeps a save over an older load', async () => {
    // Prepare
    const { source, pendingGets, saved } = controlledPreferences();
    const store = preferencesStore(source);
    const statuses: string[] = [];
    store.subscribe(() => statuses.push(store.getSnapshot().status));

    // Act
    const firstLoad = store.load();
    const secondLoad = store.load();
    const savedAnswer = await store.save(input);
    pendingGets[0]!.resolve(stored);
    await Promise.all([firstLoad, secondLoad]);
    await store.load();

    // Assess
    expect(pendingGets).toHaveLength(1);
    expect(saved).toEqual([input]);
    expect(store.getSnapshot()).toMatchObject({ status: 'ready', saving: false, error: undefined, preferences: savedAnswer });
    expect(store.getSnapshot().preferences?.timeZone).toBe('UTC');
    expect(statuses[0]).toBe('loading');
  });

  it('holds a failed load as an error, recovers on reload, and rejects a failed save', async () => {
    // Prepare
    const { source, pendingGets, failSaves } = controlledPreferences();
    const store = preferencesStore(source);

    // Act
    const failing = store.load();
    pendingGets[0]!.reject(new Error('503 unavailable'));
    await failing;
    const afterFailure = store.getSnapshot();
    const retry = store.reload();
    pendingGets[1]!.resolve(stored);
    await retry;
    const afterRetry = store.getSnapshot();
    failSaves();
    const save = store.save(input);

    // Assess
    expect(afterFailure.status).toBe('error');
    expect(afterFailure.error?.message).toBe('503 unavailable');
    expect(afterRetry).toMatchObject({ status: 'ready', preferences: stored, error: undefined });
    await expect(save).rejects.toThrow('409 conflict');
    expect(store.getSnapshot()).toMatchObject({ saving: false, preferences: stored });
    expect(store.getSnapshot().error?.message).toBe('409 conflict');
  });
});

describe('React hooks and components (server render)', () => {
  it('render the inbox, the badge and the idle preferences of a loaded client', async () => {
    // Prepare
    const { client } = aLoadedClient(3);
    await client.start();
    const seen: string[] = [];
    function Summary() {
      const inbox = useInbox();
      const counts = useCounts();
      const preferences = usePreferences();
      seen.push(`${inbox.notifications.length}/${counts.unread}/${preferences.status}/${typeof inbox.markRead}`);
      return createElement('p', null, `unread ${badgeText(counts.unread, counts.capped)}`);
    }

    // Act
    const html = renderToString(createElement(InboxProvider, { client }, createElement(Summary), createElement(NotificationBell), createElement(NotificationFeed)));

    // Assess
    expect(seen).toEqual(['2/3/idle/function']);
    expect(html).toContain('unread 3');
    expect(html).toContain('aria-label="Notifications, 3 new"');
    expect(html).toContain('class="sn-bell-badge"');
    expect(html.match(/class="sn-item sn-item-unread"/g)).toHaveLength(2);
    expect(html).toContain('Load more');
  });

  it('say what is missing when no client is given or provided', () => {
    function Orphan() {
      useCounts();
      return null;
    }
    expect(() => renderToString(createElement(Orphan))).toThrow(/no inbox client/);
  });

  it('write a capped count with a plus', () => {
    expect(badgeText(99, true)).toBe('99+');
    expect(badgeText(4, false)).toBe('4');
    expect(unseenBadgeText({ unread: 99, unseen: 99, capped: true })).toBe('99+');
    expect(unseenBadgeText({ unread: 99, unseen: 5, capped: true })).toBe('5');
  });
});
