/**
 * Keys read back: a stored item's key parsed into its kind and ids, for code that classifies stored
 * items (erasure, export, migrations) without matching strings. The builders are `keys.ts`; every
 * kind they write is parsed here from the same constants.
 */
import { TYPE_NAME_PATTERN, ULID_PATTERN } from './ids.js';
import { FOLLOWED_PACK_CHUNKS } from './followed-pack.js';
import {
  CONNECTION_ID_PATTERN,
  CONNECTION_PREFIX,
  FAN_OUT_IDEMPOTENCY_PREFIX,
  FOLLOWED_CELEBS_PACK_SUFFIX,
  FOLLOWING_CELEBS_SUFFIX,
  IDENTIFIER_PATTERN,
  ITEM_STATE_PREFIX,
  keySegment,
  LATE_ARRIVAL_PREFIX,
  PACK_CHUNK_PREFIX,
  PRESENCE_SK,
  READ_EXCEPTION_PREFIX,
  READ_MARK_SK,
  RETRACTIONS_SEGMENT,
} from './keys.js';

/**
 * An id as a key spells it: its `segment` (escaped; `~` + a hash past 256 escaped characters) and,
 * unless hashed, the id itself. `isKeyIdOf` compares either way.
 */
export interface KeyId {
  segment: string;
  value?: string;
}

/** Whether a key's id is `value` (a hashed segment compares by its hash). */
export function isKeyIdOf(id: KeyId | undefined, value: string): boolean {
  return id !== undefined && IDENTIFIER_PATTERN.test(value) && id.segment === keySegment('id', value);
}

const ESCAPED_SEGMENT = /^(?:[A-Za-z0-9._@:+=-]|%[0-9A-F]{2})+$/;
const HASHED_SEGMENT = /^~[A-Za-z0-9_-]{43}$/;
// ignoreBOM: a leading U+FEFF is part of an id, not a byte order mark.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The id of one key segment; undefined for anything `keySegment` never writes (not canonical, not UTF-8). */
export function parseKeySegment(segment: string | undefined): KeyId | undefined {
  if (segment === undefined) return undefined;
  if (HASHED_SEGMENT.test(segment)) return { segment };
  if (!ESCAPED_SEGMENT.test(segment)) return undefined;
  const bytes: number[] = [];
  for (let at = 0; at < segment.length; ) {
    const escaped = segment[at] === '%';
    bytes.push(escaped ? Number.parseInt(segment.slice(at + 1, at + 3), 16) : segment.charCodeAt(at));
    at += escaped ? 3 : 1;
  }
  let value: string;
  try {
    value = STRICT_UTF8.decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
  return IDENTIFIER_PATTERN.test(value) && keySegment('id', value) === segment ? { segment, value } : undefined;
}

interface Tenanted {
  tenantId: KeyId;
}

/** Every key kind the builders above write, with the ids it holds. */
export type ParsedKey =
  // Inbox table
  | ({ kind: 'inboxItem'; userId: KeyId; notificationId: string } & Tenanted)
  | ({ kind: 'feedItem'; actorId: KeyId; shard: number; notificationId: string } & Tenanted)
  | ({ kind: 'retraction'; arrivalMs: number; type: string; eventId: string } & Tenanted)
  /** An entry of the author's recent posts log (the kind keeps its first name: erasure reports and their checkpoints carry it). */
  | ({ kind: 'postsLogEntry'; authorId: KeyId; postId: string } & Tenanted)
  | ({ kind: 'celebrityPost'; shard: number; notificationId: string } & Tenanted)
  | ({ kind: 'celebrityPostsIndexSlot'; shard: number; slot: string; overflow: number } & Tenanted)
  // ReadMarks table
  | ({ kind: 'readMark'; userId: KeyId } & Tenanted)
  | ({ kind: 'readException' | 'itemState' | 'lateArrival'; userId: KeyId; notificationId: string } & Tenanted)
  | ({ kind: 'userTrace'; userId: KeyId; stage: string; eventId: string } & Tenanted)
  // Connections table
  | ({ kind: 'connection'; userId: KeyId; connectionId: string } & Tenanted)
  | ({ kind: 'presence'; userId: KeyId } & Tenanted)
  | { kind: 'connectionReverse'; connectionId: string }
  | ({ kind: 'onlineSubscription'; actorId: KeyId; shard: number; connectionId: string } & Tenanted)
  // Graph table
  | ({ kind: 'follower'; followeeId: KeyId; followerId: string } & Tenanted)
  /** A follower who turned post alerts on for the account. */
  | ({ kind: 'alertSubscriber'; accountId: KeyId; followerId: string } & Tenanted)
  /** The follower's reference to one of their alert subscriptions (kept under the account). */
  | ({ kind: 'alertingEntry'; userId: KeyId; accountId: string } & Tenanted)
  | ({ kind: 'followingEntry'; userId: KeyId; followeeId: string } & Tenanted)
  | ({ kind: 'formerFollower'; followeeId: KeyId; followerId: string } & Tenanted)
  | ({ kind: 'followingCeleb'; userId: KeyId; celebrityId: string } & Tenanted)
  | ({ kind: 'followedCelebsPack'; userId: KeyId; chunk: number } & Tenanted)
  | ({ kind: 'profile' | 'preferences'; userId: KeyId } & Tenanted)
  | ({ kind: 'device'; userId: KeyId; deviceId: string } & Tenanted)
  /** The rest of the CHANNELS partition: device counter, push consent, email address, email unsubscribes (`item` = the sort key). */
  | ({ kind: 'channelState'; userId: KeyId; item: string } & Tenanted)
  | { kind: 'migrationMarker'; name: string }
  // Idempotency table
  | { kind: 'deliveryRecord'; notificationId: string; connectionId: string }
  | { kind: 'deliveryStep'; notificationId: string; step: string }
  | ({ kind: 'arrivalRecord'; type: string; eventId: string } & Tenanted)
  | ({ kind: 'rateWindow'; userId: KeyId; windowStartMs: number } & Tenanted)
  | ({ kind: 'liveHold'; userId: KeyId; releaseAtMs: number } & Tenanted)
  | ({ kind: 'channelSend'; userId: KeyId; channel: string; notificationId: string; deviceId?: string } & Tenanted)
  | ({ kind: 'channelRateWindow'; userId: KeyId; channel: string; windowStartMs: number } & Tenanted)
  /** Tenantless SMS records: a number's opt-out (by digest), a keyword answer to it on a day, a day's global text count. */
  | { kind: 'smsOptOut'; digest: string }
  | { kind: 'smsAnswer'; digest: string; keyword: 'help' | 'stop' | 'start'; dayStartMs: number }
  | { kind: 'smsSpendDay'; dayStartMs: number }
  /** A trace record: of one user, or (no `userId`) of the whole event. */
  | ({ kind: 'traceRecord'; userId?: KeyId; stage: string; eventId: string } & Tenanted)
  | ({ kind: 'scheduleRef'; userId: KeyId; scheduleName: string } & Tenanted)
  | ({ kind: 'erasureRecord'; digest: string } & Tenanted)
  | ({ kind: 'exportJob'; jobId: string } & Tenanted)
  | ({ kind: 'auditSalt'; userId: KeyId } & Tenanted)
  | { kind: 'fanOutIdempotencyRecord'; hash: string };

export type KeyKind = ParsedKey['kind'];

const SHARD_TOKEN = /^S(0|[1-9]\d*)$/;
const EPOCH_MS = /^-?(0|[1-9]\d{0,15})$/;
const LOWER_WORD = /^[a-z]{1,32}$/;
const DEVICE_ID = /^d_[A-Za-z0-9_-]{22}$/;
const INDEX_SLOT = /^([0-9A-HJKMNP-TV-Z]{10})(?:#([1-9]\d{0,3}))?$/;
const RETRACTION_SORT_KEY = /^(\d{15})#([^#]*)#([\s\S]*)$/;
const POWERTOOLS_MD5 = /^[A-Za-z0-9+/]{22}==$/;

const numberOf = (token: string | undefined, pattern: RegExp, group = 0): number | undefined => {
  const match = token === undefined ? null : pattern.exec(token);
  return match ? Number(match[group]) : undefined;
};
const matching = (token: string | undefined, pattern: RegExp): string | undefined => (token !== undefined && pattern.test(token) ? token : undefined);
const after = (value: string, prefix: string): string | undefined => (value.startsWith(prefix) && value.length > prefix.length ? value.slice(prefix.length) : undefined);

/**
 * A stored item's key read back into its kind and ids: `{pk, sk}` (Inbox, ReadMarks, Connections,
 * Graph) or the Idempotency table's `{id}`. Undefined for a key no builder above writes: callers keep
 * such items as unknown, never guess.
 */
export function parseKey(key: { pk?: unknown; sk?: unknown; id?: unknown }): ParsedKey | undefined {
  if (typeof key.pk === 'string' && typeof key.sk === 'string') return parseTableKey(key.pk, key.sk);
  if (typeof key.id === 'string' && key.pk === undefined && key.sk === undefined) return parseIdempotencyId(key.id);
  return undefined;
}

function parseTableKey(pk: string, sk: string): ParsedKey | undefined {
  const tokens = pk.split('#');
  if (tokens.length === 2 && tokens[0] === 'CONN' && sk === 'CONN') {
    const connectionId = matching(tokens[1], CONNECTION_ID_PATTERN);
    return connectionId === undefined ? undefined : { kind: 'connectionReverse', connectionId };
  }
  if (tokens.length === 2 && tokens[0] === 'MIGRATION' && sk === 'MIGRATION') {
    const name = matching(tokens[1], /^[a-z0-9-]{1,64}$/);
    return name === undefined ? undefined : { kind: 'migrationMarker', name };
  }
  const tenantId = tokens[0] === 'T' ? parseKeySegment(tokens[1]) : undefined;
  if (!tenantId) return undefined;
  const [marker, ...rest] = tokens.slice(2);
  const notificationId = matching(sk, ULID_PATTERN);
  if (marker === 'U') return parseUserPartitionKey(tenantId, rest, sk);
  if (marker === 'F' && rest.length === 2) {
    const actorId = parseKeySegment(rest[0]);
    const shard = numberOf(rest[1], SHARD_TOKEN, 1);
    return actorId && shard !== undefined && notificationId ? { kind: 'feedItem', tenantId, actorId, shard, notificationId } : undefined;
  }
  if (marker === 'P' && rest.length === 1) {
    const authorId = parseKeySegment(rest[0]);
    return authorId && notificationId ? { kind: 'postsLogEntry', tenantId, authorId, postId: notificationId } : undefined;
  }
  const shard = rest.length === 1 ? numberOf(rest[0], SHARD_TOKEN, 1) : undefined;
  if (marker === 'CP' && shard !== undefined) return notificationId ? { kind: 'celebrityPost', tenantId, shard, notificationId } : undefined;
  if (marker === 'CPX' && shard !== undefined) {
    const slot = INDEX_SLOT.exec(sk);
    return slot ? { kind: 'celebrityPostsIndexSlot', tenantId, shard, slot: slot[1]!, overflow: slot[2] === undefined ? 0 : Number(slot[2]) } : undefined;
  }
  if (marker === RETRACTIONS_SEGMENT && rest.length === 0) {
    const retraction = RETRACTION_SORT_KEY.exec(sk);
    const type = matching(retraction?.[2], TYPE_NAME_PATTERN);
    return retraction && type ? { kind: 'retraction', tenantId, arrivalMs: Number(retraction[1]), type, eventId: retraction[3]! } : undefined;
  }
  return undefined;
}

/** Keys of `T#<tenant>#U#<user>[#...]` partitions: the sort key tells the kinds of one partition apart. */
function parseUserPartitionKey(tenantId: KeyId, rest: string[], sk: string): ParsedKey | undefined {
  const userId = parseKeySegment(rest[0]);
  if (!userId) return undefined;
  const base = { tenantId, userId };
  const suffix = rest.slice(1).join('#');
  const connectionId = matching(after(sk, CONNECTION_PREFIX), CONNECTION_ID_PATTERN);
  switch (suffix) {
    case '': {
      const notificationId = matching(sk, ULID_PATTERN);
      if (notificationId) return { kind: 'inboxItem', ...base, notificationId };
      if (sk === READ_MARK_SK) return { kind: 'readMark', ...base };
      if (sk === PRESENCE_SK) return { kind: 'presence', ...base };
      if (connectionId) return { kind: 'connection', ...base, connectionId };
      const stateId = after(sk, ITEM_STATE_PREFIX);
      if (stateId !== undefined) return { kind: 'itemState', ...base, notificationId: stateId };
      const lateId = after(sk, LATE_ARRIVAL_PREFIX);
      if (lateId !== undefined) return { kind: 'lateArrival', ...base, notificationId: lateId };
      const readId = after(sk, READ_EXCEPTION_PREFIX);
      return readId === undefined ? undefined : { kind: 'readException', ...base, notificationId: readId };
    }
    case 'FOLLOWERS':
      return IDENTIFIER_PATTERN.test(sk) ? { kind: 'follower', tenantId, followeeId: userId, followerId: sk } : undefined;
    case 'ALERTS':
      return IDENTIFIER_PATTERN.test(sk) ? { kind: 'alertSubscriber', tenantId, accountId: userId, followerId: sk } : undefined;
    case 'ALERTING':
      return IDENTIFIER_PATTERN.test(sk) ? { kind: 'alertingEntry', ...base, accountId: sk } : undefined;
    case 'FOLLOWING':
      return IDENTIFIER_PATTERN.test(sk) ? { kind: 'followingEntry', ...base, followeeId: sk } : undefined;
    case 'FORMER_FOLLOWERS':
      return IDENTIFIER_PATTERN.test(sk) ? { kind: 'formerFollower', tenantId, followeeId: userId, followerId: sk } : undefined;
    case 'TRACE': {
      const separator = sk.indexOf('#');
      const stage = separator > 0 ? matching(sk.slice(0, separator), LOWER_WORD) : undefined;
      return stage ? { kind: 'userTrace', ...base, stage, eventId: sk.slice(separator + 1) } : undefined;
    }
    case FOLLOWING_CELEBS_SUFFIX.slice(1):
      return IDENTIFIER_PATTERN.test(sk) ? { kind: 'followingCeleb', ...base, celebrityId: sk } : undefined;
    case FOLLOWED_CELEBS_PACK_SUFFIX.slice(1): {
      const chunk = numberOf(after(sk, PACK_CHUNK_PREFIX), /^\d$/);
      return chunk !== undefined && chunk < FOLLOWED_PACK_CHUNKS ? { kind: 'followedCelebsPack', ...base, chunk } : undefined;
    }
    case 'PROFILE':
      return sk === 'PROFILE' ? { kind: 'profile', ...base } : sk === 'PREFERENCES' ? { kind: 'preferences', ...base } : undefined;
    case 'CHANNELS': {
      const deviceId = matching(after(sk, 'DEVICE#'), DEVICE_ID);
      if (deviceId) return { kind: 'device', ...base, deviceId };
      return sk.length > 0 && !sk.startsWith('DEVICE#') ? { kind: 'channelState', ...base, item: sk } : undefined;
    }
    default: {
      const shard = rest.length === 3 && rest[1] === 'ONLINE' ? numberOf(rest[2], SHARD_TOKEN, 1) : undefined;
      return shard !== undefined && connectionId ? { kind: 'onlineSubscription', tenantId, actorId: userId, shard, connectionId } : undefined;
    }
  }
}

function parseIdempotencyId(id: string): ParsedKey | undefined {
  const lastSeparator = id.lastIndexOf('#');
  const [head, tail] = [id.slice(0, lastSeparator), id.slice(lastSeparator + 1)];
  const dlv = after(head, 'DLV#');
  if (dlv !== undefined) return CONNECTION_ID_PATTERN.test(tail) ? { kind: 'deliveryRecord', notificationId: dlv, connectionId: tail } : undefined;
  const dls = after(head, 'DLS#');
  if (dls !== undefined) return /^[A-Za-z0-9]{1,64}$/.test(tail) ? { kind: 'deliveryStep', notificationId: dls, step: tail } : undefined;
  if (head === FAN_OUT_IDEMPOTENCY_PREFIX) return POWERTOOLS_MD5.test(tail) ? { kind: 'fanOutIdempotencyRecord', hash: tail } : undefined;
  const tokens = id.split('#');
  if (tokens[0] === 'SMS' && tokens[1] === 'ANSWER' && tokens.length === 5) {
    const keyword = ({ HELP: 'help', STOP: 'stop', START: 'start' } as const)[tokens[3] as 'HELP'];
    const dayStartMs = numberOf(tokens[4], EPOCH_MS);
    return /^[A-Za-z0-9_-]{43}$/.test(tokens[2]!) && keyword && dayStartMs !== undefined ? { kind: 'smsAnswer', digest: tokens[2]!, keyword, dayStartMs } : undefined;
  }
  if (tokens[0] === 'SMS' && tokens.length === 3) {
    if (tokens[1] === 'OPTOUT') return /^[A-Za-z0-9_-]{43}$/.test(tokens[2]!) ? { kind: 'smsOptOut', digest: tokens[2]! } : undefined;
    const dayStartMs = tokens[1] === 'SPEND' ? numberOf(tokens[2], EPOCH_MS) : undefined;
    return dayStartMs === undefined ? undefined : { kind: 'smsSpendDay', dayStartMs };
  }
  const tenantId = tokens[0] === 'T' ? parseKeySegment(tokens[1]) : undefined;
  if (!tenantId) return undefined;
  const eventIdFrom = (index: number) => (tokens.length > index ? tokens.slice(index).join('#') : undefined);
  switch (tokens[2]) {
    case 'ARRIVAL': {
      const type = matching(tokens[3], TYPE_NAME_PATTERN);
      const eventId = eventIdFrom(4);
      return type && eventId !== undefined ? { kind: 'arrivalRecord', tenantId, type, eventId } : undefined;
    }
    case 'E': {
      const stage = tokens[3] === 'TRACE' ? matching(tokens[4], LOWER_WORD) : undefined;
      const eventId = eventIdFrom(5);
      return stage && eventId !== undefined ? { kind: 'traceRecord', tenantId, stage, eventId } : undefined;
    }
    case 'ERASED':
      return tokens.length === 4 && /^[A-Za-z0-9_-]{43}$/.test(tokens[3]!) ? { kind: 'erasureRecord', tenantId, digest: tokens[3]! } : undefined;
    case 'EXPORT':
      return tokens.length === 4 && ULID_PATTERN.test(tokens[3]!) ? { kind: 'exportJob', tenantId, jobId: tokens[3]! } : undefined;
    case 'U':
      return parseUserRecordId(tenantId, tokens.slice(3), eventIdFrom(6));
    default:
      return undefined;
  }
}

/** Idempotency ids of one user: `T#<tenant>#U#<user>#<KIND>#...`. */
function parseUserRecordId(tenantId: KeyId, tokens: string[], traceEventId: string | undefined): ParsedKey | undefined {
  const userId = parseKeySegment(tokens[0]);
  if (!userId) return undefined;
  const base = { tenantId, userId };
  const [kind, first, second, third] = tokens.slice(1);
  const count = tokens.length;
  if (kind === 'RATE' || kind === 'HOLD') {
    const ms = count === 3 ? numberOf(first, EPOCH_MS) : undefined;
    if (ms === undefined) return undefined;
    return kind === 'RATE' ? { kind: 'rateWindow', ...base, windowStartMs: ms } : { kind: 'liveHold', ...base, releaseAtMs: ms };
  }
  if (kind === 'SEND' && (count === 4 || count === 5)) {
    const channel = matching(first, LOWER_WORD);
    const deviceId = count === 5 ? matching(third, DEVICE_ID) : undefined;
    if (!channel || !second || (count === 5 && !deviceId)) return undefined;
    return { kind: 'channelSend', ...base, channel, notificationId: second, ...(deviceId ? { deviceId } : {}) };
  }
  if (kind === 'SCHED' && count === 3) {
    const scheduleName = matching(first, /^[0-9a-zA-Z\-_.]{1,64}$/);
    return scheduleName ? { kind: 'scheduleRef', ...base, scheduleName } : undefined;
  }
  if (kind === 'AUDITSALT' && count === 2) return { kind: 'auditSalt', ...base };
  if (kind === 'CHRATE' && count === 4) {
    const channel = matching(first, LOWER_WORD);
    const windowStartMs = numberOf(second, EPOCH_MS);
    return channel && windowStartMs !== undefined ? { kind: 'channelRateWindow', ...base, channel, windowStartMs } : undefined;
  }
  const stage = kind === 'TRACE' ? matching(first, LOWER_WORD) : undefined;
  return stage && traceEventId !== undefined ? { kind: 'traceRecord', ...base, stage, eventId: traceEventId } : undefined;
}
