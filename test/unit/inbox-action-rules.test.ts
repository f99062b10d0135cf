import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sanitizeLinks } from '../../src/core/model/action-links.js';
import { decodeCursor, encodeCursor } from '../../src/core/read/cursor.js';
import { notificationId } from '../../src/core/model/ids.js';
import { typesOfTab, typesOutsideTab } from '../../src/core/read/inbox-filters.js';
import { isArchived, isHidden, isRead, isSeen, markAt } from '../../src/core/model/read-state.js';
import { catalog } from '../../src/notifications/index.js';
import { aReadState, SECOND, T0 } from '../support/fixtures.js';

const idAt = (ms: number) => notificationId({ tenantId: 'acme', type: 'mention.created', eventId: `e${ms}`, recipient: 'alice', timeMs: ms });

describe('per-item state rules', () => {
  const below = idAt(T0);
  const above = idAt(T0 + 10 * SECOND);
  const mark = markAt(T0 + 5 * SECOND);

  it('an unread exception below the mark reads unread until a later read-all or single read', () => {
    const marked = aReadState({ readMark: mark, readMarkSetAt: 100, itemStates: new Map([[below, { unreadAt: 200 }]]) });
    expect(isRead(below, marked)).toBe(false);
    expect(isSeen(below, marked)).toBe(false);
    expect(isRead(below, { ...marked, readMarkSetAt: 300 })).toBe(true);
    expect(isRead(below, { ...marked, readExceptions: new Set([below]), readExceptionTimes: new Map([[below, 250]]) })).toBe(true);
  });

  it('archive-all-read archives what was read then: not a later arrival, not one marked unread before it', () => {
    const state = aReadState({ readMark: mark, archiveMark: mark, archiveSetAt: 500, itemStates: new Map([[idAt(T0 + SECOND), { unreadAt: 400 }]]) });
    expect(isArchived(below, state)).toBe(true);
    expect(isArchived(above, state)).toBe(false);
    expect(isArchived(idAt(T0 + SECOND), state)).toBe(false);
    const readOneBefore = { ...state, readExceptions: new Set([above]), readExceptionTimes: new Map([[above, 450]]) };
    expect(isArchived(above, readOneBefore)).toBe(true);
  });

  it('archive and unarchive one by one: the last change wins; delete and snooze hide', () => {
    const state = aReadState({ itemStates: new Map([[below, { archivedAt: 1, unarchivedAt: 2 }], [above, { deletedAt: 3 }]]) });
    expect(isArchived(below, state)).toBe(false);
    expect(isHidden(above, state)).toBe(true);
    expect(isHidden(below, aReadState({ itemStates: new Map([[below, { snoozedUntil: 9 }]]) }))).toBe(true);
  });
});

describe('action links', () => {
  it('keeps http(s) links and plain action ids, drops the rest, at most two buttons', () => {
    expect(
      sanitizeLinks({
        actionUrl: 'javascript:alert(1)',
        actions: [{ label: 'Open', url: 'https://a.example/x' }, { label: 'Bad', url: 'data:text/html,x' }, { label: 'Reply', actionId: 'reply' }],
      }),
    ).toEqual({ actions: [{ label: 'Open', url: 'https://a.example/x' }] });
    expect(sanitizeLinks({ actionUrl: 'https://user:pw@a.example/' })).toEqual({});
    expect(sanitizeLinks({ actionUrl: 'http://a.example/p?q=1', actions: [{ label: ' ', actionId: 'x' }] })).toEqual({ actionUrl: 'http://a.example/p?q=1' });
  });
});

describe('filters and tabs', () => {
  it('a category or tags resolve to the catalog types; a cursor keeps the filter and refuses a forged one', () => {
    expect(typesOfTab(catalog, { category: 'social' })).toEqual(['comment.created', 'follow.created']);
    expect(typesOfTab(catalog, { category: 'social', tags: ['thread'] })).toEqual(['comment.created']);
    expect(typesOutsideTab(catalog, { category: 'mentions' })).toEqual(['comment.created', 'post.published', 'follow.created']);
    const cursor = encodeCursor({ before: idAt(T0), filter: { read: false, types: ['mention.created'] } }, 'secret');
    expect(decodeCursor(cursor, 'secret')).toEqual({ before: idAt(T0), filter: { read: false, types: ['mention.created'] } });
    const payload = Buffer.from(JSON.stringify({ v: 1, b: idAt(T0), f: { t: ['__proto__'] } })).toString('base64url');
    const signature = createHmac('sha256', 'secret').update(payload).digest('base64url');
    expect(() => decodeCursor(`${payload}.${signature}`, 'secret')).toThrow(/cursor/);
  });
});
