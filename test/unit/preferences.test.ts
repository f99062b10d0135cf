import { describe, expect, it } from 'vitest';
import { isMuted } from '../../src/core/preferences/preferences.js';
import { defaultLookup, savedLookup, unreadableLookup } from '../support/preferences-fixtures.js';
import { preferencesInputSchema } from '../../src/contract/preferences-schemas.js';

const schema = preferencesInputSchema(['mention.created', 'comment.created', 'post.published']);

function issuePaths(input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('preferencesInputSchema', () => {
  it('accepts a full document and fills defaults for omitted optional fields', () => {
    // Act
    const parsed = schema.parse({ timeZone: 'Europe/Berlin' });

    // Assess
    expect(parsed).toEqual({ timeZone: 'Europe/Berlin', quietHours: null, mutedTypes: [], liveDelivery: {} });
    expect(
      schema.parse({ timeZone: 'Asia/Kolkata', quietHours: { start: '22:00', end: '07:00' }, mutedTypes: ['post.published'], liveDelivery: { 'comment.created': false } }),
    ).toMatchObject({ quietHours: { start: '22:00', end: '07:00' } });
  });

  it('rejects an invalid zone naming the field', () => {
    expect(issuePaths({ timeZone: 'Mars/Olympus_Mons' })).toEqual(['timeZone']);
    expect(issuePaths({ timeZone: '+05:30' })).toEqual(['timeZone']);
    expect(issuePaths({})).toEqual(['timeZone']);
  });

  it('rejects malformed quiet hours naming the field', () => {
    expect(issuePaths({ timeZone: 'UTC', quietHours: { start: '25:00', end: '07:00' } })).toEqual(['quietHours.start']);
    expect(issuePaths({ timeZone: 'UTC', quietHours: { start: '22:00', end: '7' } })).toEqual(['quietHours.end']);
    expect(issuePaths({ timeZone: 'UTC', quietHours: { start: '22:00', end: '22:00' } })).toEqual(['quietHours.end']);
    expect(issuePaths({ timeZone: 'UTC', quietHours: { start: '22:00' } })).toEqual(['quietHours.end']);
  });

  it('rejects types outside the catalog, repeats and unknown fields', () => {
    expect(issuePaths({ timeZone: 'UTC', mutedTypes: ['nope.created'] })).toEqual(['mutedTypes.0']);
    expect(issuePaths({ timeZone: 'UTC', mutedTypes: ['post.published', 'post.published'] })).toEqual(['mutedTypes']);
    expect(issuePaths({ timeZone: 'UTC', liveDelivery: { 'nope.created': false } })).toEqual(['liveDelivery.nope.created']);
    expect(issuePaths({ timeZone: 'UTC', liveDelivery: { 'comment.created': 'off' } })).toEqual(['liveDelivery.comment.created']);
    expect(issuePaths({ timeZone: 'UTC', colour: 'blue' })).toEqual(['']);
  });
});

describe('isMuted', () => {
  it('is true only for a saved muted type; unreadable or missing preferences mute nothing', () => {
    expect(isMuted(savedLookup({ mutedTypes: ['post.published'] }), 'post.published')).toBe(true);
    expect(isMuted(savedLookup({ mutedTypes: ['post.published'] }), 'mention.created')).toBe(false);
    expect(isMuted(defaultLookup(), 'post.published')).toBe(false);
    expect(isMuted(unreadableLookup(), 'post.published')).toBe(false);
    expect(isMuted(undefined, 'post.published')).toBe(false);
  });
});
