import { describe, expect, it } from 'vitest';
import { idUpperBoundAt, notificationId, timeOfId } from '../../src/core/model/ids.js';
import {
  COUNT_CAP,
  countFromIds,
  EMPTY_READ_STATE,
  type ItemException,
  isRead,
  isSeen,
  markAt,
  markUpTo,
  presentNotification,
} from '../../src/core/model/read-state.js';
import { aNotification, aReadState, notificationsEverySecond, SECOND, T0 } from '../support/fixtures.js';

const [older, atMark, newer, newest] = notificationsEverySecond(4, T0).map((item) => item.id) as [string, string, string, string];
/** Read one by one (an exception holding read and seen). */
const readOne = (...ids: string[]) => new Map<string, ItemException>(ids.map((id) => [id, { type: 'mention.created', basis: 0, read: true, seen: true, archived: false, deleted: false, expiresAt: 0 }]));

describe('isRead / isSeen', () => {
  it('with no state nothing is read or seen', () => {
    expect(isRead(older, EMPTY_READ_STATE)).toBe(false);
    expect(isSeen(older, EMPTY_READ_STATE)).toBe(false);
  });

  it('the read mark is inclusive: ids <= mark are read, ids above are not', () => {
    // Prepare
    const state = aReadState({ readMark: atMark });

    // Assess
    expect(isRead(older, state)).toBe(true);
    expect(isRead(atMark, state)).toBe(true);
    expect(isRead(newer, state)).toBe(false);
  });

  it('a single-read exception above the mark is read; its neighbours are not', () => {
    // Prepare
    const state = aReadState({ readMark: older, exceptions: readOne(newer) });

    // Assess
    expect(isRead(newer, state)).toBe(true);
    expect(isRead(atMark, state)).toBe(false);
    expect(isRead(newest, state)).toBe(false);
  });

  it('seen covers ids <= seen mark and every read id, but seen does not imply read', () => {
    // Prepare
    const state = aReadState({ readMark: older, seenMark: newer, exceptions: readOne(newest) });

    // Assess
    expect(isSeen(atMark, state)).toBe(true);
    expect(isRead(atMark, state)).toBe(false);
    expect(isSeen(newest, state)).toBe(true); // read by exception, so seen
    expect(isSeen(older, state)).toBe(true); // read by the mark, so seen
  });

  it('a read mark above the seen mark still makes those ids seen', () => {
    // Prepare
    const state = aReadState({ readMark: newer, seenMark: older });

    // Assess
    expect(isSeen(atMark, state)).toBe(true);
    expect(isSeen(newest, state)).toBe(false);
  });
});

describe('markAt', () => {
  it('covers every id created at or before the instant and none after', () => {
    // Prepare
    const mark = markAt(T0 + SECOND);
    const atInstant = aNotification(T0 + SECOND, { eventId: 'late' }).id;
    const after = aNotification(T0 + SECOND + 1).id;

    // Assess
    expect(mark).toBe(idUpperBoundAt(T0 + SECOND));
    expect(timeOfId(mark)).toBe(T0 + SECOND);
    expect(isRead(atInstant, aReadState({ readMark: mark }))).toBe(true);
    expect(isRead(after, aReadState({ readMark: mark }))).toBe(false);
  });
});

const newestOf = (ids: readonly string[]) => [...ids].sort().at(-1);

describe('countFromIds', () => {
  it('counts unread and unseen, skipping exceptions', () => {
    // Prepare
    const ids = [newest, newer, atMark];
    const state = aReadState({ readMark: older, seenMark: newer, exceptions: readOne(atMark) });

    // Act
    const counts = countFromIds(ids, state);

    // Assess
    expect(counts).toEqual({ unread: 2, unseen: 1, capped: false, newestId: newest });
  });

  it('empty inbox: zero and not capped', () => {
    expect(countFromIds([], EMPTY_READ_STATE)).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
  });

  it('exactly the cap is not capped; one more is', () => {
    // Prepare
    const ninetyNine = notificationsEverySecond(COUNT_CAP, T0).map((item) => item.id);
    const hundred = notificationsEverySecond(COUNT_CAP + 1, T0).map((item) => item.id);

    // Act + Assess
    expect(countFromIds(ninetyNine, EMPTY_READ_STATE)).toEqual({ unread: 99, unseen: 99, capped: false, newestId: newestOf(ninetyNine) });
    expect(countFromIds(hundred, EMPTY_READ_STATE)).toEqual({ unread: 99, unseen: 99, capped: true, newestId: newestOf(hundred) });
  });

  it('caps unseen too, and capped reflects unread only', () => {
    // Prepare: 150 unread, the oldest 100 of them seen.
    const ids = notificationsEverySecond(150, T0).map((item) => item.id);
    const state = aReadState({ seenMark: ids[99]! });

    // Act
    const counts = countFromIds(ids, state);

    // Assess
    expect(counts).toEqual({ unread: 99, unseen: 50, capped: true, newestId: newestOf(ids) });
  });

  it('accepts another cap', () => {
    const ids = notificationsEverySecond(5, T0).map((item) => item.id);
    expect(countFromIds(ids, EMPTY_READ_STATE, 3)).toEqual({ unread: 3, unseen: 3, capped: true, newestId: newestOf(ids) });
  });

  it('names the newest unread id it includes, not a newer read one', () => {
    const state = aReadState({ exceptions: readOne(newest) });
    expect(countFromIds([newest, newer, older], state).newestId).toBe(newer);
  });
});

describe('presentNotification', () => {
  it('maps a stored item to the contract shape with computed flags, without expiresAt', () => {
    // Prepare
    const item = aNotification(T0);

    // Act
    const presented = presentNotification(item, aReadState({ exceptions: readOne(item.id) }));

    // Assess
    expect(presented).toEqual({
      id: item.id,
      type: item.type,
      createdAt: item.createdAt,
      read: true,
      seen: true,
      actor: item.actor,
      title: item.title,
      body: item.body,
      data: item.data,
    });
    expect(Object.keys(presented)).not.toContain('expiresAt');
  });
});

describe('markUpTo (read-all / seen-all up to what the client rendered)', () => {
  const now = T0 + 10 * SECOND;

  it('is the upper bound of now without upTo', () => {
    expect(markUpTo(now, undefined)).toEqual({ mark: markAt(now), atIso: new Date(now).toISOString() });
  });

  it('is upTo itself when it is older than now: a later arrival (even in the same millisecond) stays above the mark', () => {
    // Prepare
    const shown = notificationId({ tenantId: 'acme', type: 'mention.created', eventId: 'shown', recipient: 'alice', timeMs: T0 });
    const later = notificationId({ tenantId: 'acme', type: 'mention.created', eventId: 'later', recipient: 'alice', timeMs: T0 + 1 });

    // Act
    const { mark, atIso } = markUpTo(now, shown);

    // Assess
    expect(mark).toBe(shown);
    expect(atIso).toBe(new Date(T0).toISOString());
    expect(isRead(shown, { ...EMPTY_READ_STATE, readMark: mark })).toBe(true);
    expect(isRead(later, { ...EMPTY_READ_STATE, readMark: mark })).toBe(false);
  });

  it('never covers more than now: an upTo from the future is capped', () => {
    const future = notificationId({ tenantId: 'acme', type: 'mention.created', eventId: 'future', recipient: 'alice', timeMs: now + 60 * SECOND });
    expect(markUpTo(now, future)).toEqual({ mark: markAt(now), atIso: new Date(now).toISOString() });
  });
});
