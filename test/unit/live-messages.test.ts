import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as Client from '../../src/client/index.js';
import type { ClientMessage, ReadAllAnswer, SeenAllAnswer } from '../../src/contract/wire.js';
import type { clientMessageSchema } from '../../src/contract/client-messages.js';
import {
  MAX_WEBSOCKET_MESSAGE_BYTES,
  PONG_PAYLOAD,
  digestMessage,
  digestPayload,
  liveNotification,
  notificationMessage,
  notificationPayload,
  planMessages,
  readStateMessage,
  utf8Length,
  type LiveMessage,
  type PendingPush,
} from '../../src/core/live/live-messages.js';
import type { Notification } from '../../src/core/model/notification.js';
import type { InboxPage } from '../../src/core/read/inbox-read-service.js';
import type { ReadMarks } from '../../src/core/actions/read-marks.js';
import type { Counts } from '../../src/core/model/read-state.js';
import type * as z from 'zod';
import { notificationId } from '../../src/core/model/ids.js';
import { aRenderedNotification } from '../support/delivery-fixtures.js';
import { T0, SECOND } from '../support/fixtures.js';

const T0_ISO = new Date(T0).toISOString();

const parse = (payload: string) => JSON.parse(payload) as LiveMessage;

function aLiveNotification(n: number, overrides: { body?: string; type?: string } = {}): Notification {
  return liveNotification(notificationId({ tenantId: 'acme', type: overrides.type ?? 'comment.created', eventId: `e-${n}`, recipient: 'alice', timeMs: T0 + n * SECOND }), aRenderedNotification({ type: overrides.type ?? 'comment.created', body: overrides.body ?? `comment ${n}` }));
}

function aPush(n: number, digestible: boolean, body?: string): PendingPush<string> {
  return { notification: aLiveNotification(n, { body }), digestible, tag: `record-${n}` };
}

describe('liveNotification', () => {
  it('is the rendered notification under its id, unread and unseen', () => {
    // Prepare
    const rendered = aRenderedNotification();

    // Act
    const notification = liveNotification('01JGZS0000AAAAAAAAAAAAAAAA', rendered);

    // Assess
    expect(notification).toEqual({ id: '01JGZS0000AAAAAAAAAAAAAAAA', read: false, seen: false, ...rendered });
  });
});

describe('notificationPayload', () => {
  it('sends the full notification when it fits in 128 KB', () => {
    const notification = aLiveNotification(1);

    const message = parse(notificationPayload(notification));

    expect(message).toEqual({ type: 'notification', notification });
  });

  it('sends a reference the client fetches when the message would exceed 128 KB', () => {
    // Prepare: a body of 130 KB of multi-byte characters
    const notification = aLiveNotification(1, { body: 'é'.repeat(66 * 1024) });

    // Act
    const payload = notificationPayload(notification);

    // Assess
    expect(utf8Length(payload)).toBeLessThanOrEqual(MAX_WEBSOCKET_MESSAGE_BYTES);
    expect(parse(payload)).toEqual({ type: 'notification_ref', id: notification.id, notificationType: 'comment.created', createdAt: notification.createdAt });
  });
});

describe('digestPayload', () => {
  it('lists every notification newest first with their ids and count', () => {
    const notifications = [aLiveNotification(1), aLiveNotification(3), aLiveNotification(2)];

    const message = parse(digestPayload(notifications));

    expect(message).toEqual({
      type: 'digest',
      count: 3,
      ids: [notifications[1]!.id, notifications[2]!.id, notifications[0]!.id],
      notifications: [notifications[1], notifications[2], notifications[0]],
    });
  });

  it('keeps the newest notifications that fit under the limit and still names all ids', () => {
    // Prepare: three notifications of ~50 KB each; only two fit in 128 KB
    const notifications = [1, 2, 3].map((n) => aLiveNotification(n, { body: 'x'.repeat(50 * 1024) }));

    // Act
    const payload = digestPayload(notifications);

    // Assess
    const message = parse(payload);
    expect(utf8Length(payload)).toBeLessThanOrEqual(MAX_WEBSOCKET_MESSAGE_BYTES);
    expect(message.type === 'digest' && message.count).toBe(3);
    expect(message.type === 'digest' && message.ids).toHaveLength(3);
    expect(message.type === 'digest' && message.notifications.map((notification) => notification.id)).toEqual([notifications[2]!.id, notifications[1]!.id]);
  });
});

describe('planMessages', () => {
  it('collapses several digestible pushes into one digest and keeps the rest as single messages', () => {
    // Prepare
    const pushes = [aPush(1, true), aPush(2, false), aPush(3, true), aPush(4, true)];

    // Act
    const planned = planMessages(pushes);

    // Assess
    expect(planned.map((message) => parse(message.payload).type)).toEqual(['notification', 'digest']);
    expect(planned[1]!.pushes.map((push) => push.tag)).toEqual(['record-1', 'record-3', 'record-4']);
    expect(parse(planned[1]!.payload)).toMatchObject({ type: 'digest', count: 3 });
  });

  it('sends a lone digestible push as a plain notification', () => {
    const planned = planMessages([aPush(1, true)]);

    expect(planned).toHaveLength(1);
    expect(parse(planned[0]!.payload).type).toBe('notification');
  });

  it('sends non-digestible (urgent) pushes one message each, oldest first', () => {
    const pushes = [aPush(3, false), aPush(1, false), aPush(2, false)];

    const planned = planMessages(pushes);

    expect(planned.map((message) => message.pushes[0]!.tag)).toEqual(['record-1', 'record-2', 'record-3']);
  });

  it('plans nothing for no pushes', () => {
    expect(planMessages([])).toEqual([]);
  });
});

describe('wire contract: the server and the client SDK read the same types', () => {
  // The type assertions are checked by `tsc` (npm run typecheck); the runtime ones by vitest.
  it('has one Notification and one set of WebSocket messages on both sides', () => {
    expectTypeOf<Notification>().toEqualTypeOf<Client.Notification>();
    expectTypeOf<LiveMessage>().toEqualTypeOf<Client.ServerMessage>();
    expectTypeOf<Extract<LiveMessage, { type: 'digest' }>>().toEqualTypeOf<Client.DigestMessage>();
    expectTypeOf<Extract<LiveMessage, { type: 'notification_ref' }>>().toEqualTypeOf<Client.NotificationRefMessage>();
    expectTypeOf<z.infer<typeof clientMessageSchema>>().toEqualTypeOf<ClientMessage>();
    expectTypeOf<Client.ClientMessage>().toEqualTypeOf<ClientMessage>();
  });

  it('has the REST answers the server builds on both sides', () => {
    expectTypeOf<InboxPage>().toEqualTypeOf<Client.InboxPage>();
    expectTypeOf<Counts>().toEqualTypeOf<Client.Counts>();
    expectTypeOf<Awaited<ReturnType<ReadMarks['markAllRead']>>>().toEqualTypeOf<ReadAllAnswer>();
    expectTypeOf<Awaited<ReturnType<ReadMarks['markAllSeen']>>>().toEqualTypeOf<SeenAllAnswer>();
  });

  it('hands every message the server builds to the client type without a cast, as it goes on the wire', () => {
    // Prepare
    const small = aLiveNotification(1);
    const large = aLiveNotification(2, { body: 'x'.repeat(MAX_WEBSOCKET_MESSAGE_BYTES) });

    // Act
    const built: Client.ServerMessage[] = [
      notificationMessage(small),
      notificationMessage(large),
      digestMessage([small, aLiveNotification(3)], 2_000),
      readStateMessage({ readAt: null, seenAt: T0_ISO }, { unread: 1, unseen: 0, capped: false, newestId: null }),
    ];

    // Assess
    expect(built.map((message) => message.type)).toEqual(['notification', 'notification_ref', 'digest', 'read_state']);
    expect(built.map((message) => parse(JSON.stringify(message)))).toEqual(built);
    expect(parse(notificationPayload(large))).toEqual(built[1]);
    expect(parse(PONG_PAYLOAD)).toEqual({ type: 'pong' });
  });
});
