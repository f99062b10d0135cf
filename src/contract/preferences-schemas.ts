/**
 * The request schema of `PUT /preferences` (CONTRACT.md) and the rules it shares with the stored
 * row (`core/preferences/preferences.ts`): a 24-hour clock time, quiet hours, an IANA time zone
 * the runtime knows.
 */
import * as z from 'zod';
import { channelSwitchSchema, type ChannelSwitch } from './channels.js';

/** A local wall-clock time `HH:MM`, 24-hour. */
export const CLOCK_TIME_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Shape of an IANA zone name (`Area/Location`, `Etc/GMT+5`, `UTC`); rejects offsets like `+05:30`. */
const ZONE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

let supportedZones: ReadonlySet<string> | undefined;

/**
 * True when the runtime's zone database knows `timeZone`: a name listed by
 * `Intl.supportedValuesOf('timeZone')`, or a link/alias it resolves (`UTC`, `Europe/Kyiv`).
 */
export function isValidTimeZone(timeZone: string): boolean {
  if (!ZONE_NAME_PATTERN.test(timeZone)) return false;
  supportedZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (supportedZones.has(timeZone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

const clockTime = z.string().regex(CLOCK_TIME_PATTERN, 'must be a 24-hour local time HH:MM');

export const quietHoursSchema = z
  .object({ start: clockTime, end: clockTime })
  .strict()
  .refine((window) => window.start !== window.end, { message: 'must differ from start (use null for no quiet hours)', path: ['end'] });

export const timeZoneSchema = z.string().max(64).refine(isValidTimeZone, 'must be an IANA time zone known to the runtime, e.g. Europe/Berlin');

/**
 * The body of `PUT /preferences` (a full replacement). `knownTypes` are the catalog's notification
 * types: muting or switching an unknown type is a 400 naming the field.
 */
export function preferencesInputSchema(knownTypes: readonly string[], offeredChannels: (type: string) => readonly ChannelSwitch[] = () => []) {
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
        .record(z.string(), z.partialRecord(channelSwitchSchema, z.boolean()))
        .superRefine((record, context) => {
          for (const [type, switches] of Object.entries(record)) {
            if (!known.has(type)) {
              context.addIssue({ code: 'custom', path: [type], message: `unknown notification type; must be one of ${[...known].join(', ')}` });
              continue;
            }
            const offered = offeredChannels(type);
            for (const channel of Object.keys(switches)) {
              if (!offered.includes(channel as ChannelSwitch)) context.addIssue({ code: 'custom', path: [type, channel], message: `${type} is not sent by ${channel}; its channels: ${offered.join(', ') || 'none'}` });
            }
          }
        })
        .optional(),
    })
    .strict();
}

