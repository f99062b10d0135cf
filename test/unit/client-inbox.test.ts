import { beforeEach, describe, expect, it } from 'vitest';
import { createInboxClient, idJustBelow, type DigestEvent, type InboxClientOptions, type Notification, type TokenSource } from '../../src/client/index.js';
import { FakeClock, FakeInboxServer, FakeWebSocket, aClientNotification, flush } from '../support/client-fakes.js';
import { SECOND, T0 } from '../support/fixtures.js';

function aClient(overrides: Partial<InboxClientOptions> = {}) {
  const clock = new FakeClock(T0 + 3_600 * SECOND);
  const server = new FakeInboxServer(clock);
  const client = createInboxClient({
    httpUrl: 'http://inbox.test',
    wsUrl: 'ws://inbox.test',
    token: 'token-1',
    fetch: server.fetch,
    WebSocket: FakeWebSocket,
    clock,
    random: () => 0.5,
    ...overrides,
  });
  const toasts: Notification[] = [];
  const digests: number[] = [];
  client.on('notification', (notification) => toasts.push(notification));
  client.on('digest', (digest) => digests.push(digest.count));
  return { clock, server, client, toasts, digests };
}

/** `count` notifications one second apart, oldest first. */
function history(count: number, startMs = T0, prefix = 'evt'): Notification[] {
  return Array.from({ length: count }, (_, index) => aClientNotification(startMs + index * SECOND, `${prefix}-${index}`));
}

function ids(notifications: readonly Notification[]): string[] {
  return notifications.map((item) => item.id);
}

function newestFirst(notifications: readonly Notification[]): string[] {
  return ids(notifications).sort().reverse();
}

async function startAndOpen(client: ReturnType<typeof aClient>['client']) {
  const started = client.start();
  await flush();
  FakeWebSocket.latest().serverOpen();
  await started;
  await flush();
  return FakeWebSocket.latest();
}

describe('InboxClient', () => {
  beforeEach(() => FakeWebSocket.reset());

  it('loads the first page and the counts, connects, then catches up once the socket is open', async () => {
    // Prepare
    const { client, server } = aClient({ pageSize: 5, catchUpOverlapMs: 0 });
    const stored = history(8);
    server.add(...stored);

    // Act
    await startAndOpen(client);

    // Assess
    const state = client.getState();
    expect(ids(state.notifications)).toEqual(newestFirst(stored).slice(0, 5));
    expect(state).toMatchObject({ counts: { unread: 8, unseen: 8, capped: false }, hasMore: true, loaded: true, connection: 'open' });
    expect(server.requests.some((request) => request.includes('since='))).toBe(true);
  });

  it('toasts a live push once and counts it once, however often it is delivered', async () => {
    // Prepare
    const { client, server, toasts } = aClient();
    server.add(...history(2));
    const socket = await startAndOpen(client);
    const live = aClientNotification(T0 + 60 * SECOND, 'live');
    server.add(live);

    // Act: at-least-once delivery pushes it twice
    socket.serverSend({ type: 'notification', notification: server.pushed(live.id) });
    socket.serverSend({ type: 'notification', notification: server.pushed(live.id) });

    // Assess
    expect(ids(toasts)).toEqual([live.id]);
    expect(client.getState().notifications[0]!.id).toBe(live.id);
    expect(client.getState().notifications).toHaveLength(3);
    expect(client.getState().counts).toEqual({ unread: 3, unseen: 3, capped: false });
  });

  it('after a drop, catches up what it missed: each notification once, counts from the server', async () => {
    // Prepare
    const { client, server, clock, toasts } = aClient({ catchUpPageSize: 2 });
    server.add(...history(3));
    const socket = await startAndOpen(client);
    const pushedBeforeDrop = aClientNotification(T0 + 100 * SECOND, 'before-drop');
    server.add(pushedBeforeDrop);
    socket.serverSend({ type: 'notification', notification: server.pushed(pushedBeforeDrop.id) });

    // Act: the socket drops; 5 arrive while the client is away (some with event times before the
    // last push, as info notifications batched behind an urgent one do)
    socket.serverClose();
    const missed = [...history(3, T0 + 90 * SECOND, 'missed-early'), ...history(2, T0 + 200 * SECOND, 'missed-late')];
    server.add(...missed);
    await clock.advance(clock.pendingDelays()[0]!);
    FakeWebSocket.latest().serverOpen();
    await flush();

    // Assess
    const state = client.getState();
    const all = [...history(3), pushedBeforeDrop, ...missed];
    expect(ids(state.notifications)).toEqual(newestFirst(all));
    expect(new Set(ids(state.notifications)).size).toBe(all.length);
    expect(state.counts).toEqual({ unread: 9, unseen: 9, capped: false });
    // Missed ones are in the list, not toasted as if live
    expect(ids(toasts)).toEqual([pushedBeforeDrop.id]);
    expect(server.requests.filter((request) => request.includes('since=')).length).toBeGreaterThanOrEqual(3);
  });

  it('with no overlap asks exactly since=<newest id seen>', async () => {
    const { client, server, clock } = aClient({ catchUpOverlapMs: 0 });
    const stored = history(3);
    server.add(...stored);
    const socket = await startAndOpen(client);

    socket.serverClose();
    await clock.advance(clock.pendingDelays()[0]!);
    FakeWebSocket.latest().serverOpen();
    await flush();

    expect(server.requests).toContain(`GET /notifications?limit=100&since=${newestFirst(stored)[0]}`);
  });

  it('merges history pages with live inserts without duplicates and stops when history ends', async () => {
    // Prepare
    const { client, server } = aClient({ pageSize: 3 });
    const stored = history(7);
    server.add(...stored);
    const socket = await startAndOpen(client);

    // Act: live pushes land between page loads, one of them an older id pushed late
    const late = aClientNotification(T0 + 30 * SECOND, 'late');
    server.add(late);
    socket.serverSend({ type: 'notification', notification: server.pushed(late.id) });
    const firstMore = await client.loadMore();
    socket.serverSend({ type: 'notification', notification: server.pushed(stored[0]!.id) });
    const secondMore = await client.loadMore();
    const thirdMore = await client.loadMore();

    // Assess
    expect([firstMore, secondMore]).toEqual([true, false]);
    expect(thirdMore).toBe(false);
    expect(ids(client.getState().notifications)).toEqual(newestFirst([...stored, late]));
    expect(client.getState().hasMore).toBe(false);
  });

  it('merges a digest into the list and reports only its new notifications', async () => {
    // Prepare
    const { client, server, digests } = aClient();
    const socket = await startAndOpen(client);
    const comments = history(3, T0 + 10 * SECOND, 'comment').map((item) => ({ ...item, type: 'comment.created' }));
    server.add(...comments);

    // Act
    socket.serverSend({ type: 'digest', count: 3, ids: newestFirst(comments), notifications: comments.map((item) => server.pushed(item.id)) });
    socket.serverSend({ type: 'digest', count: 3, ids: newestFirst(comments), notifications: comments.map((item) => server.pushed(item.id)) });

    // Assess
    expect(digests).toEqual([3]);
    expect(ids(client.getState().notifications)).toEqual(newestFirst(comments));
    expect(client.getState().counts.unread).toBe(3);
  });

  it('follows read_state from another device: marks and counts', async () => {
    // Prepare
    const { client, server, clock } = aClient();
    server.add(...history(4));
    const socket = await startAndOpen(client);

    // Act: another device opened the bell, then marked all read
    server.seenMarkMs = clock.now();
    socket.serverSend(server.readStateMessage());
    const afterSeen = client.getState();
    server.readMarkMs = clock.now();
    socket.serverSend(server.readStateMessage());

    // Assess
    expect(afterSeen.counts).toEqual({ unread: 4, unseen: 0, capped: false });
    expect(afterSeen.notifications.every((item) => item.seen && !item.read)).toBe(true);
    expect(client.getState().counts).toEqual({ unread: 0, unseen: 0, capped: false });
    expect(client.getState().notifications.every((item) => item.read)).toBe(true);
  });

  it('learns which notification another device read on its own (read_state does not say)', async () => {
    // Prepare
    const { client, server } = aClient();
    const stored = history(4);
    server.add(...stored);
    const socket = await startAndOpen(client);

    // Act: the phone opened one notification
    server.singleReads.add(stored[1]!.id);
    socket.serverSend(server.readStateMessage());
    await flush();

    // Assess
    expect(client.getState().counts).toEqual({ unread: 3, unseen: 3, capped: false });
    expect(client.getState().notifications.filter((item) => item.read).map((item) => item.id)).toEqual([stored[1]!.id]);
  });

  it('asks the server whether a read_state at the cap means "99+"', async () => {
    // Prepare
    const { client, server, clock } = aClient();
    server.add(...history(150));
    const socket = await startAndOpen(client);
    expect(client.getState().counts).toEqual({ unread: 99, unseen: 99, capped: true });

    // Act
    server.seenMarkMs = clock.now();
    socket.serverSend(server.readStateMessage());
    await clock.advance(2_000);

    // Assess
    expect(client.getState().counts).toEqual({ unread: 99, unseen: 0, capped: true });
  });

  it('markAllSeen clears the badge but not unread; markAllRead clears both; markRead one', async () => {
    // Prepare
    const { client, server, clock } = aClient();
    const stored = history(3);
    server.add(...stored);
    await startAndOpen(client);

    // Act / Assess
    await clock.advance(SECOND);
    await client.markRead(stored[0]!.id);
    expect(client.getState().counts).toEqual({ unread: 2, unseen: 2, capped: false });
    expect(client.getState().notifications.find((item) => item.id === stored[0]!.id)).toMatchObject({ read: true, seen: true });

    await client.markAllSeen();
    expect(client.getState().counts).toEqual({ unread: 2, unseen: 0, capped: false });
    expect(client.getState().notifications.filter((item) => !item.read)).toHaveLength(2);

    await client.markAllRead();
    expect(client.getState().counts).toEqual({ unread: 0, unseen: 0, capped: false });
    expect(client.getState().notifications.every((item) => item.read && item.seen)).toBe(true);
    await client.refreshCounts();
    expect(client.getState().counts).toEqual(server.counts());
  });

  it('starts over from the newest page when the catch-up is too long to stitch', async () => {
    // Prepare
    const { client, server, clock } = aClient({ pageSize: 5, catchUpPageSize: 2, maxCatchUpPages: 2 });
    server.add(...history(3));
    const socket = await startAndOpen(client);

    // Act
    socket.serverClose();
    const flood = history(20, T0 + 600 * SECOND, 'flood');
    server.add(...flood);
    await clock.advance(clock.pendingDelays()[0]!);
    FakeWebSocket.latest().serverOpen();
    await flush();

    // Assess: the newest page, and history continues from it
    expect(ids(client.getState().notifications)).toEqual(newestFirst(flood).slice(0, 5));
    while (await client.loadMore()) {
      // page through
    }
    expect(ids(client.getState().notifications)).toEqual(newestFirst([...history(3), ...flood]));
  });

  it('asks the counts again when a live arrival raced the answer', async () => {
    // Prepare
    const { client, server } = aClient();
    server.add(...history(2));
    const socket = await startAndOpen(client);
    const live = aClientNotification(T0 + 60 * SECOND, 'live');
    let raced = false;
    server.beforeAnswer = (path) => {
      if (path !== '/notifications/counts' || raced) return;
      raced = true;
      // Written and pushed while the counts request is in flight, after the server counted.
      const answerFirst = server.counts();
      server.add(live);
      socket.serverSend({ type: 'notification', notification: server.pushed(live.id) });
      server.counts = () => answerFirst;
      queueMicrotask(() => {
        delete (server as { counts?: unknown }).counts;
      });
    };

    // Act
    await client.refreshCounts();

    // Assess
    expect(client.getState().counts).toEqual({ unread: 3, unseen: 3, capped: false });
  });

  it('retries a refused REST call once with a fresh token from the provider', async () => {
    // Prepare
    const calls: boolean[] = [];
    const token: TokenSource = ({ forceRefresh }) => {
      calls.push(forceRefresh);
      return forceRefresh ? 'token-1' : 'expired';
    };
    const { client, server } = aClient({ token, live: false });
    server.add(...history(1));

    // Act
    await client.start();

    // Assess
    expect(client.getState().notifications).toHaveLength(1);
    expect(calls.slice(0, 2)).toEqual([false, true]);
  });

  it('retries a failed sync with backoff and reports the error', async () => {
    // Prepare
    const { client, server, clock } = aClient({ live: false });
    server.add(...history(2));
    const errors: Error[] = [];
    client.on('error', (error) => errors.push(error));
    server.beforeAnswer = () => {
      throw new Error('network down');
    };

    // Act
    await client.start();
    server.beforeAnswer = undefined;
    await clock.advance(clock.pendingDelays()[0]!);

    // Assess
    expect(errors.map((error) => error.message)).toEqual(['network down']);
    expect(client.getState().notifications).toHaveLength(2);
  });

  it('subscribe() gets the state now and after each change; stop() ends everything', async () => {
    const { client, server, clock } = aClient();
    server.add(...history(1));
    const seen: number[] = [];
    const unsubscribe = client.subscribe((state) => seen.push(state.notifications.length));

    await startAndOpen(client);
    unsubscribe();
    client.stop();
    await clock.advance(3 * 3_600 * SECOND);

    expect(seen[0]).toBe(0);
    expect(seen[seen.length - 1]).toBe(1);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });
});

describe('InboxClient, pushes that name notifications without carrying them', () => {
  beforeEach(() => FakeWebSocket.reset());

  function aComment(timeMs: number, eventId: string): Notification {
    return aClientNotification(timeMs, eventId, { type: 'comment.created', title: 'Carol commented' });
  }

  it('fetches a notification_ref by since= and type=, stores it once in order, toasts and counts it once', async () => {
    // Prepare: newer notifications of the same type landed after the big one, so the fetch pages
    const { client, server, toasts } = aClient({ catchUpPageSize: 2 });
    server.add(...history(2));
    const socket = await startAndOpen(client);
    const big = aClientNotification(T0 + 60 * SECOND, 'big', { body: 'x'.repeat(1_000) });
    const newer = history(3, T0 + 61 * SECOND, 'newer');
    const otherType = aComment(T0 + 62 * SECOND, 'other-type');
    server.add(big, ...newer, otherType);
    const requestsBefore = server.requests.length;

    // Act: the server sends a reference (too large for one message), twice (at-least-once delivery)
    socket.serverSend({ type: 'notification_ref', id: big.id, notificationType: big.type, createdAt: big.createdAt });
    socket.serverSend({ type: 'notification_ref', id: big.id, notificationType: big.type, createdAt: big.createdAt });
    await flush();

    // Assess
    const state = client.getState();
    expect(ids(state.notifications)).toEqual(newestFirst([...history(2), big]));
    expect(state.notifications.find((item) => item.id === big.id)).toEqual(server.pushed(big.id));
    expect(ids(toasts)).toEqual([big.id]);
    expect(state.counts).toEqual({ unread: 3, unseen: 3, capped: false });
    const fetches = server.requests.slice(requestsBefore);
    expect(fetches[0]).toBe(`GET /notifications?limit=2&since=${idJustBelow(big.id)}&type=mention.created`);
    expect(fetches.every((request) => request.includes('type=mention.created'))).toBe(true);
  });

  it('fetches the ids of a digest that did not fit in the message and reports the digest once, whole', async () => {
    // Prepare
    const { client, server } = aClient();
    server.add(...history(1));
    const socket = await startAndOpen(client);
    const comments = Array.from({ length: 5 }, (_, index) => aComment(T0 + (100 + index) * SECOND, `comment-${index}`));
    server.add(...comments);
    const digests: DigestEvent[] = [];
    client.on('digest', (digest) => digests.push(digest));
    const digestIds = newestFirst(comments);
    // The newest two fit in the message; the other three are named only
    const bodies = digestIds.slice(0, 2).map((id) => server.pushed(id));

    // Act
    socket.serverSend({ type: 'digest', count: 5, ids: digestIds, notifications: bodies });
    socket.serverSend({ type: 'digest', count: 5, ids: digestIds, notifications: bodies });
    await flush();

    // Assess
    const state = client.getState();
    expect(ids(state.notifications)).toEqual(newestFirst([...history(1), ...comments]));
    expect(new Set(ids(state.notifications)).size).toBe(6);
    expect(digests).toHaveLength(1);
    expect(digests[0]!.count).toBe(5);
    expect(ids(digests[0]!.notifications)).toEqual(digestIds);
    expect(state.counts).toEqual({ unread: 6, unseen: 6, capped: false });
  });

  it('asks again after a backoff when the named notification is not readable yet', async () => {
    // Prepare
    const { client, server, clock, toasts } = aClient();
    server.add(...history(1));
    const socket = await startAndOpen(client);
    const big = aClientNotification(T0 + 60 * SECOND, 'big');

    // Act: the reference arrives before the read side returns the notification
    socket.serverSend({ type: 'notification_ref', id: big.id, notificationType: big.type, createdAt: big.createdAt });
    await flush();
    const afterFirstTry = ids(client.getState().notifications);
    server.add(big);
    await clock.advance(clock.pendingDelays()[0]!);

    // Assess
    expect(afterFirstTry).not.toContain(big.id);
    expect(ids(client.getState().notifications)).toEqual(newestFirst([...history(1), big]));
    expect(ids(toasts)).toEqual([big.id]);
  });

  it('does not fetch or toast a named notification a catch-up already brought', async () => {
    // Prepare
    const { client, server, toasts } = aClient();
    const socket = await startAndOpen(client);
    const big = aClientNotification(T0 + 60 * SECOND, 'big');
    server.add(big);
    await client.requestSync();
    const requestsBefore = server.requests.length;

    // Act
    socket.serverSend({ type: 'notification_ref', id: big.id, notificationType: big.type, createdAt: big.createdAt });
    await flush();

    // Assess
    expect(server.requests.slice(requestsBefore)).toEqual([]);
    expect(toasts).toEqual([]);
    expect(ids(client.getState().notifications)).toEqual([big.id]);
  });
});
