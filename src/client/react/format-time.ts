/** The feed's time stamps: relative ("5 minutes ago", "yesterday") in the given locale, the full date in the tooltip. */

/** Formats a notification's time; `now` moves on while the feed is shown. */
export type TimeFormatter = (date: Date, now: Date) => string;

const SECOND = 1_000;
const MAX_CLOCK_SKEW_MS = 60 * SECOND;
const UNITS: ReadonlyArray<readonly [Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400 * SECOND],
  ['month', 30 * 86_400 * SECOND],
  ['week', 7 * 86_400 * SECOND],
  ['day', 86_400 * SECOND],
  ['hour', 3_600 * SECOND],
  ['minute', 60 * SECOND],
  ['second', SECOND],
];

/** `Intl.RelativeTimeFormat` in `locale` (default: the browser's), largest whole unit: "3 hours ago", "yesterday", "now". */
export function relativeTimeFormatter(locale?: string | readonly string[]): TimeFormatter {
  const format = new Intl.RelativeTimeFormat(locale as string | string[] | undefined, { numeric: 'auto' });
  return (date, now) => {
    const difference = date.getTime() - now.getTime();
    // A time a little ahead of this device's clock is the server's clock, not the future.
    if (difference > 0 && difference < MAX_CLOCK_SKEW_MS) return format.format(0, 'second');
    for (const [unit, size] of UNITS) {
      if (Math.abs(difference) >= size) return format.format(Math.trunc(difference / size), unit);
    }
    return format.format(0, 'second');
  };
}

/** The full date and time in `locale`, for the `<time>` element's title. */
export function absoluteTimeFormatter(locale?: string | readonly string[]): (date: Date) => string {
  const format = new Intl.DateTimeFormat(locale as string | string[] | undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return (date) => format.format(date);
}
