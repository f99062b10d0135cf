/** The time part of a ULID (first 10 Crockford base32 characters = epoch milliseconds). */

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_LENGTH = 10;
const RANDOM_LENGTH = 16;

/** Epoch milliseconds encoded in a ULID's time part. */
export function timeOfId(id: string): number {
  let time = 0;
  for (let i = 0; i < TIME_LENGTH; i += 1) {
    const value = CROCKFORD.indexOf(id.charAt(i).toUpperCase());
    if (value < 0) throw new Error(`not a ULID: ${id}`);
    time = time * 32 + value;
  }
  return time;
}

function encodeTime(timeMs: number): string {
  let rest = Math.max(0, Math.floor(timeMs));
  let out = '';
  for (let i = 0; i < TIME_LENGTH; i += 1) {
    out = CROCKFORD.charAt(rest % 32) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** The greatest ULID carrying `timeMs`: every id at or before that instant sorts <= it. */
export function highestIdAt(timeMs: number): string {
  return encodeTime(timeMs) + 'Z'.repeat(RANDOM_LENGTH);
}

/** The smallest ULID carrying `timeMs`: every id at or after that instant sorts >= it. */
export function lowestIdAt(timeMs: number): string {
  return encodeTime(timeMs) + '0'.repeat(RANDOM_LENGTH);
}

/**
 * The greatest ULID below `id` (the same id with its last character stepped down, borrowing), so
 * `since=<it>` starts exactly at `id`. Undefined for the lowest id, which nothing precedes.
 */
export function idJustBelow(id: string): string | undefined {
  const chars = id.toUpperCase().split('');
  for (let i = chars.length - 1; i >= 0; i -= 1) {
    const value = CROCKFORD.indexOf(chars[i]!);
    if (value < 0) throw new Error(`not a ULID: ${id}`);
    if (value > 0) {
      chars[i] = CROCKFORD.charAt(value - 1);
      return chars.join('');
    }
    chars[i] = CROCKFORD.charAt(CROCKFORD.length - 1);
  }
  return undefined;
}
