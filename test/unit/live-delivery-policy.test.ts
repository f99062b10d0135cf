import { describe, expect, it } from 'vitest';
import { decideLiveDelivery, exceedsRateLimit, FAIL_CLOSED_RETRY_MS, rateLimitWindowAt } from '../../src/core/preferences/delivery-policy.js';
import { aPushSubject, defaultLookup, savedLookup, unreadableLookup, utc } from '../support/preferences-fixtures.js';

const duringQuietHours = utc(2026, 11, 21, 23, 0); // 00:00 in Berlin
const quietBerlin = { timeZone: 'Europe/Berlin', quietHours: { start: '22:00', end: '07:00' } };

describe('decideLiveDelivery', () => {
  it('pushes at once for a user who never saved preferences', () => {
    expect(decideLiveDelivery(duringQuietHours, aPushSubject(), defaultLookup())).toEqual({ action: 'push' });
  });

  it('holds a non-urgent push in quiet hours until the window ends in the user zone', () => {
    // Act
    const decision = decideLiveDelivery(duringQuietHours, aPushSubject({ priority: 'info' }), savedLookup(quietBerlin));

    // Assess: 07:00 CET = 06:00Z
    expect(decision).toEqual({ action: 'hold', untilMs: utc(2026, 11, 22, 6, 0), reason: 'quiet_hours' });
  });

  it('pushes outside quiet hours', () => {
    expect(decideLiveDelivery(utc(2026, 11, 21, 12, 0), aPushSubject(), savedLookup(quietBerlin))).toEqual({ action: 'push' });
  });

  it('lets an urgent push through quiet hours when its type allows it', () => {
    const subject = aPushSubject({ type: 'mention.created', priority: 'urgent', urgentBypassesQuietHours: true });
    expect(decideLiveDelivery(duringQuietHours, subject, savedLookup(quietBerlin))).toEqual({ action: 'push' });
  });

  it('holds an urgent push in quiet hours when its type says urgent does not bypass', () => {
    const subject = aPushSubject({ priority: 'urgent', urgentBypassesQuietHours: false });
    expect(decideLiveDelivery(duringQuietHours, subject, savedLookup(quietBerlin))).toMatchObject({ action: 'hold', reason: 'quiet_hours' });
  });

  it('fails closed: unreadable preferences hold the push, even an urgent one', () => {
    const subject = aPushSubject({ priority: 'urgent' });
    expect(decideLiveDelivery(duringQuietHours, subject, unreadableLookup())).toEqual({
      action: 'hold',
      untilMs: duringQuietHours + FAIL_CLOSED_RETRY_MS,
      reason: 'preferences_unavailable',
    });
  });

  it('fails closed when the stored zone is not in the runtime zone database', () => {
    const lookup = savedLookup({ timeZone: 'Mars/Olympus_Mons', quietHours: { start: '22:00', end: '07:00' } });
    expect(decideLiveDelivery(duringQuietHours, aPushSubject(), lookup)).toMatchObject({ action: 'hold', reason: 'preferences_unavailable' });
  });

  it('skips the push of a type whose live delivery is off (inbox only), quiet or not', () => {
    const lookup = savedLookup({ liveDelivery: { 'comment.created': false, 'mention.created': true } });
    expect(decideLiveDelivery(duringQuietHours, aPushSubject({ type: 'comment.created' }), lookup)).toEqual({ action: 'skip', reason: 'live_delivery_off' });
    expect(decideLiveDelivery(duringQuietHours, aPushSubject({ type: 'mention.created' }), lookup)).toEqual({ action: 'push' });
  });

  it('skips the push of a muted type', () => {
    expect(decideLiveDelivery(duringQuietHours, aPushSubject(), savedLookup({ mutedTypes: ['comment.created'] }))).toEqual({ action: 'skip', reason: 'muted' });
  });
});

describe('rate limit windows', () => {
  it('windows are epoch-aligned minutes; the end is exclusive', () => {
    expect(rateLimitWindowAt(utc(2026, 11, 21, 10, 0, 0))).toEqual({ startMs: utc(2026, 11, 21, 10, 0), endMs: utc(2026, 11, 21, 10, 1) });
    expect(rateLimitWindowAt(utc(2026, 11, 21, 10, 0, 59) + 999)).toEqual({ startMs: utc(2026, 11, 21, 10, 0), endMs: utc(2026, 11, 21, 10, 1) });
    expect(rateLimitWindowAt(utc(2026, 11, 21, 10, 1, 0)).startMs).toBe(utc(2026, 11, 21, 10, 1));
  });

  it('honours a custom window length', () => {
    expect(rateLimitWindowAt(12_345, 10_000)).toEqual({ startMs: 10_000, endMs: 20_000 });
  });

  it('the first N pushes of a window go, the N+1th and later are held', () => {
    expect(exceedsRateLimit(1, 3)).toBe(false);
    expect(exceedsRateLimit(3, 3)).toBe(false);
    expect(exceedsRateLimit(4, 3)).toBe(true);
    expect(exceedsRateLimit(400, 3)).toBe(true);
  });

  it('a limit of 0 disables the rate limit', () => {
    expect(exceedsRateLimit(10_000, 0)).toBe(false);
  });
});
