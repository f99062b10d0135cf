import { describe, expect, it } from 'vitest';
import { decodeTime } from 'ulid';
import { idLowerBoundAt, idUpperBoundAt, isNotificationId, notificationId, timeOfId } from '../../src/core/model/ids.js';
import { T0 } from '../support/fixtures.js';

const input = { tenantId: 'acme', type: 'mention.created', eventId: 'evt-42', recipient: 'alice', timeMs: T0 };

describe('notificationId', () => {
  it('is deterministic: the same (tenant, event, recipient, time) gives the same id', () => {
    // Act
    const first = notificationId(input);
    const second = notificationId({ ...input });

    // Assess
    expect(second).toBe(first);
    expect(isNotificationId(first)).toBe(true);
    expect(first).toHaveLength(26);
  });

  it.each([
    ['tenant', { tenantId: 'globex' }],
    ['type (a mention and a comment sharing an event id)', { type: 'comment.created' }],
    ['event', { eventId: 'evt-43' }],
    ['recipient', { recipient: 'bob' }],
  ])('differs when the %s differs', (_name, change) => {
    // Act
    const other = notificationId({ ...input, ...change });

    // Assess
    expect(other).not.toBe(notificationId(input));
    // Same instant: only the random part differs.
    expect(other.slice(0, 10)).toBe(notificationId(input).slice(0, 10));
  });

  it('does not confuse field boundaries (tenant "a", event "b:c" vs tenant "a:b", event "c")', () => {
    // Act
    const one = notificationId({ ...input, tenantId: 'a', eventId: 'b:c' });
    const two = notificationId({ ...input, tenantId: 'a:b', eventId: 'c' });

    // Assess
    expect(one).not.toBe(two);
  });

  it('carries the event time in its time part', () => {
    // Prepare
    const timeMs = T0 + 123_456;

    // Act
    const id = notificationId({ ...input, timeMs });

    // Assess
    expect(timeOfId(id)).toBe(timeMs);
    expect(decodeTime(id)).toBe(timeMs);
  });

  it('sorts by event time, whatever the random part', () => {
    // Prepare
    const times = [T0 + 5, T0, T0 + 1_000, T0 + 1, T0 + 60_000];

    // Act
    const ids = times.map((timeMs, index) => notificationId({ ...input, eventId: `e${index}`, timeMs }));

    // Assess
    const byId = [...ids].sort();
    expect(byId.map(timeOfId)).toEqual([...times].sort((a, b) => a - b));
  });
});

describe('id bounds', () => {
  it('every id at an instant lies within [lower, upper] of that instant, and outside those of the neighbours', () => {
    // Prepare
    const ids = Array.from({ length: 50 }, (_, index) => notificationId({ ...input, eventId: `e${index}` }));

    // Assess
    for (const id of ids) {
      expect(id >= idLowerBoundAt(T0)).toBe(true);
      expect(id <= idUpperBoundAt(T0)).toBe(true);
      expect(id > idUpperBoundAt(T0 - 1)).toBe(true);
      expect(id < idLowerBoundAt(T0 + 1)).toBe(true);
    }
  });

  it('bounds are well-formed ids carrying the instant', () => {
    // Assess
    expect(isNotificationId(idUpperBoundAt(T0))).toBe(true);
    expect(isNotificationId(idLowerBoundAt(T0))).toBe(true);
    expect(timeOfId(idUpperBoundAt(T0))).toBe(T0);
    expect(timeOfId(idLowerBoundAt(T0))).toBe(T0);
  });
});

describe('isNotificationId', () => {
  it.each(['', 'abc', '01ARZ3NDEKTSV4RRFFQ69G5FA', '01ARZ3NDEKTSV4RRFFQ69G5FAVX', '01arz3ndektsv4rrffq69g5fav', '01ARZ3NDEKTSV4RRFFQ69G5FAI', '81ARZ3NDEKTSV4RRFFQ69G5FAV', '01ARZ3NDEK#SV4RRFFQ69G5FAV'])(
    'rejects %j',
    (value) => {
      expect(isNotificationId(value)).toBe(false);
    },
  );

  it('accepts a canonical ULID', () => {
    expect(isNotificationId('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe(true);
  });
});
