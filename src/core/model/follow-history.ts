/**
 * A follow pair's history: its follow and unfollow records, each at its ARRIVAL (the moment the
 * system accepted it: the intake record's SentTimestamp, kept once per event by the arrival ledger),
 * processed in any order. The pair's state at time t is the kind of its latest record at or before t;
 * at one millisecond an unfollow is the later record. So a record that arrives late (another intake
 * queue, a retry, a redrive) takes its place by arrival and never undoes a later one, and a post that
 * arrived at t is for the pair iff it followed at t.
 *
 * Stored as a String Set on the follower item (`h`, elements `<ms>:f` / `<ms>:u`): adding a record is
 * one idempotent `ADD` whatever order records come in. Records older than the retention horizon are
 * compacted into the latest of them (it alone decides the state at the horizon).
 */

export type FollowRecordKind = 'follow' | 'unfollow';

export interface FollowRecord {
  atMs: number;
  kind: FollowRecordKind;
}

/**
 * How long after its arrival a follow or unfollow record can first be stamped with it: only a
 * receive from its intake queue stamps (SQS retries keep the SentTimestamp) and an intake message
 * lives at most 14 days (SQS's maximum retention; the intake queues keep 4). A redriven message is a
 * new message with a new SentTimestamp, a duplicate publish or a replay a new one too: each keeps
 * the first arrival only through the arrival ledger, whose record lives the inbox TTL from the first
 * stamp. So a record older than another can reach the fan-out at most this plus the inbox TTL later.
 */
export const MAX_RECORD_DELAY_DAYS = 14;

/**
 * How long an unfollowed pair's marker (and any record) is kept after its arrival: no record that
 * arrived before it can reach the fan-out later (`MAX_RECORD_DELAY_DAYS` plus the ledger's lifetime).
 */
export function followRecordRetentionDays(inboxTtlDays: number): number {
  return inboxTtlDays + MAX_RECORD_DELAY_DAYS;
}

/** The String Set attribute of a follower item that holds the history. */
export const FOLLOW_HISTORY_ATTRIBUTE = 'h';

const KIND_CODE: Record<FollowRecordKind, string> = { follow: 'f', unfollow: 'u' };
const ELEMENT = /^(\d{1,16}):([fu])$/;

export function encodeFollowRecord(record: FollowRecord): string {
  if (!Number.isSafeInteger(record.atMs) || record.atMs < 0) throw new RangeError(`follow record time is not an epoch ms: ${record.atMs}`);
  return `${record.atMs}:${KIND_CODE[record.kind]}`;
}

/** The record of one element; undefined for anything else (skipped, never thrown). */
export function decodeFollowRecord(element: unknown): FollowRecord | undefined {
  if (typeof element !== 'string') return undefined;
  const match = ELEMENT.exec(element);
  if (!match) return undefined;
  const atMs = Number(match[1]);
  return Number.isSafeInteger(atMs) ? { atMs, kind: match[2] === 'f' ? 'follow' : 'unfollow' } : undefined;
}

/** Arrival order: by time, and at one millisecond the unfollow last. */
export function compareFollowRecords(a: FollowRecord, b: FollowRecord): number {
  return a.atMs - b.atMs || (a.kind === b.kind ? 0 : a.kind === 'follow' ? -1 : 1);
}

/**
 * The history of a stored follower item, oldest first: its `h` elements, plus its `followedAt` as a
 * follow record (an edge written before histories existed has only that; on a newer one it repeats a
 * record of `h`).
 */
export function followHistoryOf(elements: Iterable<unknown> | undefined, followedAt?: unknown): FollowRecord[] {
  const records = new Map<string, FollowRecord>();
  for (const element of elements ?? []) {
    const record = decodeFollowRecord(element);
    if (record) records.set(encodeFollowRecord(record), record);
  }
  if (typeof followedAt === 'string') {
    const atMs = Date.parse(followedAt);
    if (Number.isSafeInteger(atMs) && atMs >= 0) records.set(encodeFollowRecord({ atMs, kind: 'follow' }), { atMs, kind: 'follow' });
  }
  return [...records.values()].sort(compareFollowRecords);
}

/** The latest record at or before `atMs` (a record at `atMs` counts). */
function latestAt(history: readonly FollowRecord[], atMs: number): FollowRecord | undefined {
  let latest: FollowRecord | undefined;
  for (const record of history) {
    if (record.atMs > atMs) break;
    latest = record;
  }
  return latest;
}

/** Whether the pair followed at `atMs` (history oldest first): a post that arrived then is theirs. */
export function followingAt(history: readonly FollowRecord[], atMs: number): boolean {
  return latestAt(history, atMs)?.kind === 'follow';
}

/** The pair's state now: following since the start of its current run (the first follow after the last unfollow), or not. */
export type FollowRun = { following: true; sinceMs: number } | { following: false };

export function currentRun(history: readonly FollowRecord[]): FollowRun {
  const last = history.at(-1);
  if (!last || last.kind !== 'follow') return { following: false };
  let sinceMs = last.atMs;
  for (let index = history.length - 1; index >= 0 && history[index]!.kind === 'follow'; index -= 1) sinceMs = history[index]!.atMs;
  return { following: true, sinceMs };
}

/**
 * The arrival window a follow record decides: from its time until the next unfollow after it
 * (undefined = still open). Posts that arrived in it are the pair's, whatever order things ran in.
 */
export function windowOf(history: readonly FollowRecord[], record: FollowRecord): { fromMs: number; untilMs?: number } {
  const next = history.find((other) => other.kind === 'unfollow' && compareFollowRecords(other, record) > 0);
  return { fromMs: record.atMs, ...(next ? { untilMs: next.atMs } : {}) };
}

/** The last unfollow's time, when the pair does not follow now (a tombstone's age is counted from it). */
export function lastUnfollowAt(history: readonly FollowRecord[]): number | undefined {
  const last = history.at(-1);
  return last?.kind === 'unfollow' ? last.atMs : undefined;
}

/**
 * Elements that may go: every record older than `horizonMs` except the latest of them (it alone
 * decides the state at the horizon: no record can arrive from before it any more) and the start of
 * the current run (the floor of the celebrity feeds the pair reads).
 */
export function compactableRecords(history: readonly FollowRecord[], horizonMs: number): FollowRecord[] {
  const old = history.filter((record) => record.atMs < horizonMs);
  const run = currentRun(history);
  return old.slice(0, -1).filter((record) => !(run.following && record.kind === 'follow' && record.atMs === run.sinceMs));
}
