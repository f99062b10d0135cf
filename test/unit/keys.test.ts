import { describe, expect, it } from 'vitest';
import { InvalidIdentifierError, ValidationError } from '../../src/core/errors.js';
import { assertIdentifier, keys, READ_MARK_SK, userPartition } from '../../src/core/keys.js';
import { idLowerBoundAt, idUpperBoundAt } from '../../src/core/ids.js';
import { T0 } from '../support/fixtures.js';

describe('keys', () => {
  it('every partition key starts with the tenant as a literal leading segment', () => {
    // Act
    const partitions = [
      keys.inboxItem('acme', 'alice', 'X').pk,
      keys.feedShardPartition('acme', 'star', 3),
      keys.feedItem('acme', 'star', 0, 'X').pk,
      keys.readMark('acme', 'alice').pk,
      keys.readException('acme', 'alice', 'X').pk,
      keys.followersPartition('acme', 'alice'),
      keys.follower('acme', 'alice', 'bob').pk,
      keys.followingCelebsPartition('acme', 'alice'),
      keys.followingCeleb('acme', 'alice', 'star').pk,
      keys.profile('acme', 'alice').pk,
    ];

    // Assess
    for (const pk of partitions) expect(pk.startsWith('T#acme#')).toBe(true);
  });

  it('builds the documented shapes', () => {
    expect(userPartition('acme', 'alice')).toBe('T#acme#U#alice');
    expect(keys.inboxItem('acme', 'alice', '01ARZ3NDEKTSV4RRFFQ69G5FAV')).toEqual({ pk: 'T#acme#U#alice', sk: '01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    expect(keys.feedItem('acme', 'star', 2, 'X')).toEqual({ pk: 'T#acme#F#star#S2', sk: 'X' });
    expect(keys.readMark('acme', 'alice')).toEqual({ pk: 'T#acme#U#alice', sk: READ_MARK_SK });
    expect(keys.readException('acme', 'alice', 'X')).toEqual({ pk: 'T#acme#U#alice', sk: 'READ#X' });
    expect(keys.followingCeleb('acme', 'alice', 'star')).toEqual({ pk: 'T#acme#U#alice#FOLLOWING_CELEBS', sk: 'star' });
  });

  it('the mark item sorts after every READ#<id> exception, inside the read-state range', () => {
    // Prepare
    const exceptions = [idLowerBoundAt(0), idUpperBoundAt(T0), 'Z'.repeat(26)].map((id) => keys.readException('acme', 'alice', id).sk);

    // Assess
    for (const sk of exceptions) {
      expect(sk < READ_MARK_SK).toBe(true);
      expect(sk >= keys.readStateRange.from && sk <= keys.readStateRange.to).toBe(true);
    }
    expect(keys.readStateRange.to).toBe(READ_MARK_SK);
  });

  it('recovers the notification id from an exception sort key, and nothing from the mark', () => {
    expect(keys.notificationIdFromReadException(keys.readException('acme', 'alice', 'ABC').sk)).toBe('ABC');
    expect(keys.notificationIdFromReadException(READ_MARK_SK)).toBeUndefined();
  });

  it('tenants with a common prefix get disjoint partitions', () => {
    // "acme" vs "acme#U#alice" style confusion is impossible because '#' is rejected.
    expect(userPartition('acme', 'alice')).not.toBe(userPartition('acme2', 'alice'));
    expect(userPartition('acme2', 'alice').startsWith(`${userPartition('acme', 'alice')}`)).toBe(false);
  });
});

describe('identifier validation', () => {
  it.each([
    ['tenant with #', () => userPartition('ac#me', 'alice')],
    ['user with #', () => userPartition('acme', 'U#bob')],
    ['empty tenant', () => userPartition('', 'alice')],
    ['empty user', () => userPartition('acme', '')],
    ['actor with #', () => keys.feedShardPartition('acme', 'st#ar', 0)],
    ['celebrity with #', () => keys.followingCeleb('acme', 'alice', 'a#b')],
    ['follower with space', () => keys.follower('acme', 'alice', 'b ob')],
    ['user too long', () => userPartition('acme', 'a'.repeat(129))],
    ['user with slash', () => userPartition('acme', 'a/b')],
  ])('rejects %s', (_name, build) => {
    // Act + Assess
    expect(build).toThrow(InvalidIdentifierError);
  });

  it('the error is a ValidationError naming the field', () => {
    // Act
    let caught: unknown;
    try {
      assertIdentifier('userId', 'a#b');
    } catch (error) {
      caught = error;
    }

    // Assess
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).details[0]?.path).toBe('userId');
  });

  it('accepts the allowed characters up to 128 long', () => {
    expect(assertIdentifier('userId', 'a.b_c@d:e+f=g-H9')).toBe('a.b_c@d:e+f=g-H9');
    expect(assertIdentifier('userId', 'x'.repeat(128))).toHaveLength(128);
  });
});
