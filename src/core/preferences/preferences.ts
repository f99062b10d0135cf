/**
 * A user's delivery preferences (CONTRACT.md, `GET/PUT /preferences`): IANA time zone, quiet hours,
 * muted types (no inbox item, no push) and per-type live delivery (off = inbox only).
 */
import * as z from 'zod';
import type { QuietHours } from './quiet-hours.js';
import type { ChannelSwitches } from '../model/channel.js';
import { quietHoursSchema, timeZoneSchema } from '../../contract/preferences-schemas.js';

export interface Preferences {
  timeZone: string;
  quietHours: QuietHours | null;
  mutedTypes: string[];
  /** Per notification type; a type not listed is delivered live. */
  liveDelivery: Record<string, boolean>;
  /** ISO time of the last PUT; null for a user who never saved preferences. */
  updatedAt: string | null;
  /** Per type, per channel (push, email) on/off; absent = the type's default (its catalog file). Omitted when empty. */
  channels?: ChannelSwitches;
}

/** What a user who never saved preferences gets: UTC, no quiet hours, nothing muted, everything live. */
export const DEFAULT_PREFERENCES: Readonly<Preferences> = Object.freeze({
  timeZone: 'UTC',
  quietHours: null,
  mutedTypes: [],
  liveDelivery: {},
  updatedAt: null,
});

/**
 * A stored preferences row as read back. Lenient about types (a type removed from the catalog is
 * simply ignored) but strict about the zone: a zone the runtime no longer knows makes the row
 * unreadable, and delivery then fails closed.
 */
export const storedPreferencesSchema = z.object({
  timeZone: timeZoneSchema,
  quietHours: quietHoursSchema.nullable(),
  mutedTypes: z.array(z.string()),
  liveDelivery: z.record(z.string(), z.boolean()),
  updatedAt: z.string(),
  // Rows saved before channels existed have none.
  channels: z.record(z.string(), z.record(z.string(), z.boolean())).optional(),
});

/**
 * What a reader found: saved preferences, the defaults (nothing saved), or a row it could not
 * read or evaluate (read error, corrupt row, unknown zone): callers fail closed on `unreadable`.
 */
export type PreferencesLookup =
  | { status: 'saved'; preferences: Preferences }
  | { status: 'default'; preferences: Preferences }
  | { status: 'unreadable'; reason: string };

/** Muted types get no inbox item and no push. An unreadable row mutes nothing (the inbox write is never lost). */
export function isMuted(lookup: PreferencesLookup | undefined, type: string): boolean {
  return lookup !== undefined && lookup.status !== 'unreadable' && lookup.preferences.mutedTypes.includes(type);
}
