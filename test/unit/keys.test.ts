import { describe, expect, it } from 'vitest';
import { InvalidIdentifierError, ValidationError } from '../../src/core/model/errors.js';
import { assertIdentifier, keySegment, keys, READ_MARK_SK, tenantKeyPrefix, userPartition } from '../../src/core/model/keys.js';
import { idLowerBoundAt, idUpperBoundAt } from '../../src/core/model/ids.js';
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
    ['empty tenant', () => userPartition('', 'alice')],
    ['empty user', () => userPartition('acme', '')],
    ['user too long', () => userPartition('acme', 'a'.repeat(257))],
    ['user with a lone surrogate', () => userPartition('acme', 'a\uD800b')],
    ['empty follower', () => keys.follower('acme', 'alice', '')],
  ])('rejects %s', (_name, build) => {
    // Act + Assess
    expect(build).toThrow(InvalidIdentifierError);
  });

  it('the error is a ValidationError naming the field', () => {
    // Act
    let caught: unknown;
    try {
      assertIdentifier('userId', '');
    } catch (error) {
      caught = error;
    }

    // Assess
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).details[0]?.path).toBe('userId');
  });

  it('accepts any value an identity provider issues, up to 256 long', () => {
    for (const id of ['a.b_c@d:e+f=g-H9', 'auth0|64f1c2', 'google-oauth2|1234', 'user_2abc', 'a@b.c', 'ac#me', 'b ob', 'a/b', 'Zoë 🙂', 'x'.repeat(256)]) {
      expect(assertIdentifier('userId', id)).toBe(id);
    }
  });
});

describe('key segments', () => {
  it('keeps plain ids readable and escapes everything else, so `#` never reaches a key', () => {
    expect(keySegment('userId', 'user_2abc')).toBe('user_2abc');
    expect(userPartition('acme', 'auth0|64f1c2')).toBe('T#acme#U#auth0%7C64f1c2');
    expect(userPartition('ac#me', 'U#bob')).toBe('T#ac%23me#U#U%23bob');
    expect(tenantKeyPrefix('acme')).toBe('T#acme');
    expect(keys.feedShardPartition('acme', 'st#ar', 0)).toBe('T#acme#F#st%23ar#S0');
  });

  it('maps ids that differ only in escaped characters to different keys', () => {
    // `%` itself is escaped, so an id that spells out another's escape is still a different key.
    const ids = ['a|b', 'a%7Cb', 'a%257Cb', 'a b', 'a+b', 'a/b', 'a#b', 'a~b', '~a', 'aé', 'ae\u0301'];
    const partitions = ids.map((id) => userPartition('acme', id));
    expect(new Set(partitions).size).toBe(ids.length);
    const tenants = ids.map((id) => userPartition(id, 'alice'));
    expect(new Set(tenants).size).toBe(ids.length);
  });

  it('hashes long escaped ids, keeping two different long ids apart and keys short', () => {
    const first = userPartition('acme', `|${'x'.repeat(255)}`);
    const second = userPartition('acme', `|${'x'.repeat(254)}y`);
    expect(first).not.toBe(second);
    expect(first).toMatch(/^T#acme#U#~[A-Za-z0-9_-]{43}$/);
    const worst = keys.followingCelebsPartition('🙂'.repeat(128), '🙂'.repeat(128));
    expect(new TextEncoder().encode(worst).length).toBeLessThan(2048);
  });

  it('a user segment never reads as a tenant boundary: tenant-led keys stay disjoint', () => {
    expect(userPartition('acme', 'x#U#y')).not.toBe(userPartition('acme#U#x', 'y'));
    expect(userPartition('acme%23U%23x', 'y')).not.toBe(userPartition('acme#U#x', 'y'));
  });
});

describe('keys.profileOfFollowersPartition', () => {
  it('answers the PROFILE key of the followee of a FOLLOWERS partition, also for escaped ids, and nothing for other partitions', () => {
    for (const followee of ['bob', 'auth0|x', '__proto__', 'ü'.repeat(200)]) {
      expect(keys.profileOfFollowersPartition(keys.followersPartition('acme', followee))).toEqual(keys.profile('acme', followee));
    }
    expect(keys.profileOfFollowersPartition(keys.followingCelebsPartition('acme', 'bob'))).toBeUndefined();
  });
});
