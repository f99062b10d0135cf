/**
 * A user's delivery preferences (CONTRACT.md, `GET/PUT /preferences`): IANA time zone, quiet hours,
 * muted types (no inbox item, no push) and per-type live delivery (off = inbox only).
 */
import * as z from 'zod';
import { CLOCK_TIME_PATTERN, type QuietHours } from './quiet-hours.js';
import { isValidTimeZone } from './time-zones.js';
import { channelSchema, type Channel, type ChannelSwitches } from '../model/channel.js';

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

const clockTime = z.string().regex(CLOCK_TIME_PATTERN, 'must be a 24-hour local time HH:MM');

const quietHoursSchema = z
  .object({ start: clockTime, end: clockTime })
  .strict()
  .refine((window) => window.start !== window.end, { message: 'must differ from start (use null for no quiet hours)', path: ['end'] });

const timeZoneSchema = z.string().max(64).refine(isValidTimeZone, 'must be an IANA time zone known to the runtime, e.g. Europe/Berlin');

/**
 * The body of `PUT /preferences` (a full replacement). `knownTypes` are the catalog's notification
 * types: muting or switching an unknown type is a 400 naming the field.
 */
export function preferencesInputSchema(knownTypes: readonly string[], offeredChannels: (type: string) => readonly Channel[] = () => []) {
  const known = new Set(knownTypes);
  const notificationType = z.string().refine((type) => known.has(type), `must be one of ${[...known].join(', ')}`);
  return z
    .object({
      timeZone: timeZoneSchema,
      quietHours: quietHoursSchema.nullable().default(null),
      mutedTypes: z
        .array(notificationType)
        .max(knownTypes.length)
        .default([])
        .refine((types) => new Set(types).size === types.length, 'must not repeat a type'),
      liveDelivery: z
        .record(z.string(), z.boolean())
        .default({})
        .superRefine((record, context) => {
          for (const type of Object.keys(record)) {
            if (!known.has(type)) context.addIssue({ code: 'custom', path: [type], message: `unknown notification type; must be one of ${[...known].join(', ')}` });
          }
        }),
      channels: z
        .record(z.string(), z.partialRecord(channelSchema, z.boolean()))
        .superRefine((record, context) => {
          for (const [type, switches] of Object.entries(record)) {
            if (!known.has(type)) {
              context.addIssue({ code: 'custom', path: [type], message: `unknown notification type; must be one of ${[...known].join(', ')}` });
              continue;
            }
            const offered = offeredChannels(type);
            for (const channel of Object.keys(switches)) {
              if (!offered.includes(channel as Channel)) context.addIssue({ code: 'custom', path: [type, channel], message: `${type} is not sent by ${channel}; its channels: ${offered.join(', ') || 'none'}` });
            }
          }
        })
        .optional(),
    })
    .strict();
}

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
