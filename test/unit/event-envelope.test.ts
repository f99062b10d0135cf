import { describe, expect, it } from 'vitest';
import { EventValidationError, validateEvent, validateEventBridgeBody } from '../../src/core/fanout/events.js';
import { findNotificationType } from '../../src/notifications/index.js';
import { aFollow, aMention, aPost, eventBridgeBody } from '../support/events.js';

const FALLBACK_TIME = '2026-01-01T00:00:00Z';
const validate = (detailType: string, detail: unknown) => validateEvent({ detailType, detail, fallbackTime: FALLBACK_TIME, findType: findNotificationType });

function rejectionPaths(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(EventValidationError);
    return (error as EventValidationError).details.map((detail) => detail.path);
  }
  throw new Error('expected a rejection');
}

describe('validateEvent', () => {
  it('accepts a mention and takes the type default priority and the fallback time', () => {
    const { event } = validate('mention.created', aMention({ id: 'evt-1' }));
    expect(event).toMatchObject({ type: 'mention.created', eventId: 'evt-1', tenantId: 'acme', recipients: ['alice'], priority: 'urgent', timeMs: Date.parse(FALLBACK_TIME) });
    expect(event.followersOf).toBeUndefined();
  });

  it('prefers the envelope time and priority', () => {
    const { event } = validate('mention.created', aMention({ time: '2026-02-03T04:05:06.789Z', priority: 'info' }));
    expect(event.timeMs).toBe(Date.parse('2026-02-03T04:05:06.789Z'));
    expect(event.priority).toBe('info');
  });

  it('makes the actor the audience of a post and keeps direct recipients', () => {
    const { event } = validate('post.published', aPost('bob', { recipients: ['editor'] }));
    expect(event).toMatchObject({ followersOf: 'bob', recipients: ['editor'], priority: 'info' });
  });

  it('derives the followee as the recipient of a follow', () => {
    expect(validate('follow.created', aFollow('alice', 'bob')).event.recipients).toEqual(['bob']);
  });

  it('accepts the epoch itself and an actor of exactly 4 KB', () => {
    const actor = { id: 'bob', bio: '' };
    actor.bio = 'x'.repeat(4 * 1024 - Buffer.byteLength(JSON.stringify(actor)));
    expect(validate('mention.created', aMention({ time: '1970-01-01T00:00:00Z', actor })).event.timeMs).toBe(0);
  });

  it('accepts a graph-only event without an audience', () => {
    expect(validate('follow.deleted', aFollow('alice', 'bob')).event.recipients).toEqual([]);
  });

  it.each([
    ['a missing data field', aMention({ data: { excerpt: 'x' } }), 'detail.data.postId'],
    ['an unknown data field', aMention({ data: { postId: 'p', excerpt: 'x', extra: 1 } }), 'detail.data'],
    ['a tenant longer than 256 characters', { ...aMention(), tenantId: 'a'.repeat(257) }, 'detail.tenantId'],
    ['a missing event id', { ...aMention(), id: '' }, 'detail.id'],
    ['an empty recipient', aMention({ recipients: ['ok', ''] }), 'detail.recipients.1'],
    ['a bad priority', { ...aMention(), priority: 'asap' }, 'detail.priority'],
    ['a bad time', { ...aMention(), time: 'yesterday' }, 'detail.time'],
    ['a time before 1970 (no notification id can hold it)', aMention({ time: '1969-12-31T23:59:59Z' }), 'detail.time'],
    ['an actor larger than 4 KB (copied into every inbox item and push)', aMention({ actor: { id: 'bob', bio: 'x'.repeat(5_000) } }), 'detail.actor'],
    ['an actor id longer than 256 characters', aMention({ actor: { id: 'b'.repeat(257) } }), 'detail.actor.id'],
    ['an empty followersOf', aMention({ audience: { followersOf: '' } }), 'detail.audience.followersOf'],
    ['no audience at all', { ...aMention(), recipients: undefined }, 'detail.recipients'],
  ])('rejects %s and names the field', (_case, detail, path) => {
    expect(rejectionPaths(() => validate('mention.created', detail))).toContain(path);
  });

  it('names an unknown top-level field', () => {
    const error = (() => {
      try {
        validate('mention.created', { ...aMention(), recipent: ['x'] });
      } catch (caught) {
        return caught as EventValidationError;
      }
    })();
    expect(error?.message).toContain('recipent');
  });

  it('accepts any producer time ahead (ids carry the arrival, so a future time orders nothing) and shows it as createdAt', () => {
    // Act
    const { event } = validate('mention.created', aMention({ time: '9999-01-01T00:00:00.000Z' }));

    // Assess
    expect(event.timeMs).toBe(Date.parse('9999-01-01T00:00:00.000Z'));
  });

  it.each([
    ['an integer above 2^53 in actor extras', aMention({ actor: { id: 'bob', followers: 2 ** 53 + 2 } }), 'detail.actor.followers', '2^53'],
    ['a number DynamoDB cannot hold', aMention({ actor: { id: 'bob', ratio: 1e-200 } }), 'detail.actor.ratio', '1e-130'],
    ['an empty map key', aMention({ actor: { id: 'bob', meta: { '': 1 } } }), 'detail.actor.meta', 'empty key'],
    ['nesting deeper than DynamoDB stores', aMention({ actor: { id: 'bob', deep: JSON.parse('['.repeat(40) + ']'.repeat(40)) as unknown } }), 'detail.actor.deep', 'nested'],
  ])('refuses %s at validation, naming the field (it could not be stored)', (_name, detail, path, reason) => {
    try {
      validate('mention.created', detail);
      expect.unreachable('an unstorable event was accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(EventValidationError);
      expect((error as EventValidationError).details).toEqual([{ path: expect.stringContaining(path), message: expect.stringContaining(reason) }]);
    }
  });

  it('rejects an unknown detail-type', () => {
    expect(rejectionPaths(() => validate('nope.created', aMention()))).toEqual(['detail-type']);
  });
});

describe('validateEventBridgeBody', () => {
  it('uses the EventBridge event time when the envelope has none', () => {
    const { event } = validateEventBridgeBody(eventBridgeBody('mention.created', aMention(), '2026-03-01T10:00:00Z'), findNotificationType);
    expect(event.timeMs).toBe(Date.parse('2026-03-01T10:00:00Z'));
  });

  it('rejects a body that is not JSON', () => {
    expect(rejectionPaths(() => validateEventBridgeBody('{', findNotificationType))).toEqual(['(body)']);
  });
});
