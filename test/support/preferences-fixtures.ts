/** Typed fixture factories for preferences, quiet hours and the live-delivery policy. */
import type { LivePushSubject } from '../../src/core/preferences/delivery-policy.js';
import { DEFAULT_PREFERENCES, type Preferences, type PreferencesLookup } from '../../src/core/preferences/preferences.js';

/** Preferences as a user saved them; defaults to UTC, no quiet hours, nothing muted. */
export function aPreferences(overrides: Partial<Preferences> = {}): Preferences {
  return { ...DEFAULT_PREFERENCES, mutedTypes: [], liveDelivery: {}, updatedAt: '2026-01-01T00:00:00.000Z', ...overrides };
}

export function savedLookup(overrides: Partial<Preferences> = {}): PreferencesLookup {
  return { status: 'saved', preferences: aPreferences(overrides) };
}

export function defaultLookup(): PreferencesLookup {
  return { status: 'default', preferences: { ...DEFAULT_PREFERENCES } };
}

export function unreadableLookup(reason = 'read failed'): PreferencesLookup {
  return { status: 'unreadable', reason };
}

export function aPushSubject(overrides: Partial<LivePushSubject> = {}): LivePushSubject {
  return { type: 'comment.created', priority: 'info', urgentBypassesQuietHours: true, ...overrides };
}

/** `Date.UTC` with a 1-based month, for readable instants in tests. */
export function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute, second);
}
