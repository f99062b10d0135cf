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
 * Checks every own key of a JSON object before zod reads it: zod's records skip a `__proto__` key
 * silently (it would answer 200 and drop it), so an unknown key, `__proto__` included, is an issue
 * naming it here. `issuesOf` answers the issues of one key (relative paths), none when it is allowed.
 */
function ownKeysChecked(issuesOf: (key: string, value: unknown) => { path: string[]; message: string }[]) {
  return (input: unknown, context: z.RefinementCtx) => {
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
      for (const [key, value] of Object.entries(input)) for (const issue of issuesOf(key, value)) context.addIssue({ code: 'custom', ...issue, input });
    }
    return input;
  };
}

/**
 * The body of `PUT /preferences` (a full replacement). `knownTypes` are the catalog's notification
 * types: muting or switching an unknown type (or naming `__proto__` in any map) is a 400 naming the field.
 */
export function preferencesInputSchema(knownTypes: readonly string[], offeredChannels: (type: string) => readonly ChannelSwitch[] = () => []) {
  const known = new Set(knownTypes);
  const notificationType = z.string().refine((type) => known.has(type), `must be one of ${[...known].join(', ')}`);
  const unknownType = (type: string) => (known.has(type) ? [] : [{ path: [type], message: `unknown notification type; must be one of ${[...known].join(', ')}` }]);
  const channelsOf = (type: string, switches: unknown) => {
    if (typeof switches !== 'object' || switches === null || Array.isArray(switches)) return [];
    const offered = offeredChannels(type);
    return Object.keys(switches)
      .filter((channel) => !offered.includes(channel as ChannelSwitch))
      .map((channel) => ({ path: [type, channel], message: `${type} is not sent by ${channel}; its channels: ${offered.join(', ') || 'none'}` }));
  };
  return z
    .object({
      timeZone: timeZoneSchema,
      quietHours: quietHoursSchema.nullable().default(null),
      mutedTypes: z
        .array(notificationType)
        .max(knownTypes.length)
        .default([])
        .refine((types) => new Set(types).size === types.length, 'must not repeat a type'),
      liveDelivery: z.preprocess(ownKeysChecked(unknownType), z.record(z.string(), z.boolean())).default({}),
      channels: z
        .preprocess(
          ownKeysChecked((type, switches) => (known.has(type) ? channelsOf(type, switches) : unknownType(type))),
          z.record(z.string(), z.partialRecord(channelSwitchSchema, z.boolean())),
        )
        .optional(),
    })
    .strict();
}
