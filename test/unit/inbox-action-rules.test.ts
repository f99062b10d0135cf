import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sanitizeLinks } from '../../src/core/model/action-links.js';
import { decodeCursor, encodeCursor } from '../../src/core/read/cursor.js';
import { notificationId } from '../../src/core/model/ids.js';
import { typesOfTab, typesOutsideTab } from '../../src/core/read/inbox-filters.js';
import { exceptionAfter, isArchived, isHidden, isRead, isSeen, markAt, type ItemException } from '../../src/core/model/read-state.js';
import { catalog } from '../../src/notifications/index.js';
import { aReadState, SECOND, T0 } from '../support/fixtures.js';

const idAt = (ms: number) => notificationId({ tenantId: 'acme', type: 'mention.created', eventId: `e${ms}`, recipient: 'alice', timeMs: ms });

describe('per-item state rules (materialized exceptions over versioned marks)', () => {
  const below = idAt(T0);
  const above = idAt(T0 + 10 * SECOND);
  const mark = markAt(T0 + 5 * SECOND);
  const exception = (fields: Partial<ItemException>): ItemException => ({ type: 'mention.created', basis: 0, read: false, seen: false, archived: false, deleted: false, expiresAt: 0, ...fields });

  it('an unread exception below the mark reads unread until a read-all of a later version covers it', () => {
    const marked = aReadState({ readMark: mark, version: 1, readVersion: 1, exceptions: new Map([[below, exception({ basis: 1, seen: true })]]) });
    expect(isRead(below, marked)).toBe(false);
    expect(isSeen(below, marked)).toBe(true);
    expect(isRead(below, { ...marked, version: 2, readVersion: 2 })).toBe(true);
  });

  it('a read-all of an older upTo (a device behind) reads again only what is at or below it', () => {
    const state = aReadState({ readMark: mark, version: 2, readVersion: 1, staleReadAlls: [{ version: 2, mark: idAt(T0 - SECOND) }], exceptions: new Map([[below, exception({ basis: 1 })]]) });
    expect(isRead(below, state)).toBe(false);
    expect(isRead(below, { ...state, staleReadAlls: [{ version: 2, mark: below }] })).toBe(true);
  });

  it('archive-all-read archives what was read then: not a later arrival, not one marked unread before it; a later single read keeps it archived', () => {
    const archive = { version: 2, readMark: mark, readVersion: 1, staleReadAlls: [] };
    const unreadBefore = idAt(T0 + SECOND);
    const state = aReadState({ readMark: mark, version: 2, readVersion: 1, archive, exceptions: new Map([[unreadBefore, exception({ basis: 1 })]]) });
    expect(isArchived(below, state)).toBe(true);
    expect(isArchived(above, state)).toBe(false);
    expect(isArchived(unreadBefore, state)).toBe(false);
    expect(isArchived(above, { ...state, exceptions: new Map([[above, exception({ basis: 0, read: true })]]) })).toBe(true);
    // Opened from the archive after it: the exception holds archived too.
    const reread = exceptionAfter(below, state, { type: 'mention.created' }, { kind: 'read' }, 0);
    expect(reread).toMatchObject({ basis: 2, read: true, archived: true });
  });

  it('archive and unarchive one by one win until the next archive-all-read; delete and snooze hide', () => {
    const unarchived = aReadState({ readMark: mark, version: 2, readVersion: 1, archive: { version: 2, readMark: mark, readVersion: 1, staleReadAlls: [] }, exceptions: new Map([[below, exception({ basis: 2, read: true })], [above, exception({ deleted: true })]]) });
    expect(isArchived(below, unarchived)).toBe(false);
    expect(isArchived(below, { ...unarchived, version: 3, archive: { version: 3, readMark: mark, readVersion: 1, staleReadAlls: [] } })).toBe(true);
    expect(isHidden(above, unarchived)).toBe(true);
    expect(isHidden(below, aReadState({ exceptions: new Map([[below, exception({ snoozedUntil: 9, comebackId: above })]]) }))).toBe(true);
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
