/**
 * The counts floor and a later follow (src/core/model/counts-floor.ts): the floor is written only
 * while the user follows no celebrity, and a feed shows only posts above its follow time, which a
 * later follow puts above every floor written before it. The real core over the in-memory ports:
 * single reads, the floor moved, then a follow and a post, read and unread again.
 */
import { describe, expect, it } from 'vitest';
import type { NotificationEvent } from '../../src/core/fanout/events.js';
import type { UserRef } from '../../src/core/model/user.js';
import { InboxSystem } from './inbox-view/system.js';
import { memoryBackend } from './inbox-view/memory-ports.js';

const MINUTE = 60_000;

describe('the counts floor, then a follow of a celebrity', () => {
  it('counts the new celebrity\'s post (above the floor), and again once it is marked unread', async () => {
    // Arrange: 30 own notifications read one by one, 11 minutes old: a count moves the floor over them.
    const backend = memoryBackend();
    const user: UserRef = { tenantId: 'floor-follow', userId: 'u' };
    let nowMs = Date.UTC(2026, 10, 1);
    const clock = { nowMs: () => nowMs };
    const sys = new InboxSystem(backend, user, clock, [], [], false);
    const event = (eventId: string, fields: Partial<NotificationEvent>): NotificationEvent => ({
      type: 'mention.created',
      eventId,
      tenantId: user.tenantId,
      actor: { id: 'actor', name: 'Actor' },
      recipients: [user.userId],
      priority: 'info',
      timeMs: nowMs,
      data: { postId: 'p1', excerpt: eventId },
      ...fields,
    });
    for (let index = 0; index < 30; index += 1) {
      expect(await sys.publish(event(`own-${index}`, {}))).toBe('landed');
      nowMs += 10;
    }
    for (const item of (await sys.firstPage({ limit: 50 })).items) expect(await sys.act('read', item.id)).toBe('ok');
    nowMs += 11 * MINUTE;
    expect(await sys.counts()).toMatchObject({ unread: 0 });
    const floor = (await backend.ports.readState.readAboveMark(user)).countsFloor;
    expect(floor).toBeDefined();

    // Act: the user follows a celebrity, who posts.
    await backend.seed(user, ['celeb'], nowMs);
    nowMs += 1_000;
    expect(await sys.publish(event('post-1', { type: 'post.published', actor: { id: 'celeb', name: 'Celeb' }, recipients: [], followersOf: 'celeb', data: { postId: 'post-1', title: 'post-1' } }))).toBe('landed');
    nowMs += 1_000;

    // Assess: the post is above the floor and counted; read, then unread 11 minutes on, it counts again.
    const post = (await sys.firstPage({ limit: 1 })).items[0]!;
    expect(post.type).toBe('post.published');
    expect(post.id > floor!).toBe(true);
    expect(await sys.counts()).toMatchObject({ unread: 1 });
    expect(await sys.act('read', post.id)).toBe('ok');
    nowMs += 11 * MINUTE;
    expect(await sys.counts()).toMatchObject({ unread: 0 });
    expect(await sys.act('unread', post.id)).toBe('ok');
    expect(await sys.counts()).toMatchObject({ unread: 1 });
    expect((await backend.ports.readState.readAboveMark(user)).countsFloor).toBe(floor);
  });
});
