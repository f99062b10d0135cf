/**
 * Every DynamoDB key of the system is built here, and only here.
 *
 * Partition keys start with the tenant as a literal leading segment (`T#<tenant>#...`) so an IAM
 * `dynamodb:LeadingKeys` condition can clamp a role to one tenant.
 */
import { createHash } from 'node:crypto';
import { InvalidIdentifierError } from './errors.js';
import { TYPE_NAME_PATTERN, ULID_PATTERN } from './ids.js';
import { FOLLOWED_PACK_CHUNKS } from './followed-pack.js';

/**
 * Tenant ids, user ids and actor ids: any value an identity provider issues (`auth0|64f1c2`,
 * `a@b.c`, non-ASCII), 1 to 256 UTF-16 units, well-formed (no lone surrogate, which no JSON claim
 * round-trips). Keys never hold the raw value: `keySegment` escapes it.
 */
export const IDENTIFIER_PATTERN = /^(?:[^\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF]){1,256}$/;
export const IDENTIFIER_RULE = 'must be 1 to 256 characters';

export function assertIdentifier(kind: string, value: string): string {
  if (!IDENTIFIER_PATTERN.test(value)) throw new InvalidIdentifierError(kind, value);
  return value;
}

/** Characters a key segment keeps as they are, so plain ids (`acme`, `user_2abc`) stay readable in keys. */
const PLAIN_KEY_CHARACTER = /[A-Za-z0-9._@:+=-]/;
/** Longer escaped segments are hashed, so a partition key stays far under DynamoDB's 2048 bytes. */
const MAX_ESCAPED_SEGMENT = 256;
/** Starts every hashed segment; `~` is never plain, so an escaped segment never starts with it. */
const HASHED_SEGMENT_MARK = '~';
const UTF8 = new TextEncoder();

/**
 * An identifier as one segment of a key: plain characters as they are, every other UTF-8 byte as
 * `%XX` (so `#`, our separator, never appears and two different ids never share a segment); an
 * escaped form over 256 characters becomes `~` + its SHA-256 (base64url).
 */
export function keySegment(kind: string, value: string): string {
  assertIdentifier(kind, value);
  let escaped = '';
  for (const character of value) {
    if (PLAIN_KEY_CHARACTER.test(character)) escaped += character;
    else for (const byte of UTF8.encode(character)) escaped += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return escaped.length <= MAX_ESCAPED_SEGMENT ? escaped : `${HASHED_SEGMENT_MARK}${createHash('sha256').update(value, 'utf8').digest('base64url')}`;
}

/** Every count index partition (`celebrityPostsIndexPartition`), as an IAM `dynamodb:LeadingKeys` StringLike pattern. */
export const CELEBRITY_POSTS_INDEX_KEY_PATTERN = 'T#*#CPX#S*';

/** `T#<tenant segment>`: the literal leading segment of every tenant-led partition key (IAM `dynamodb:LeadingKeys`). */
export function tenantKeyPrefix(tenantId: string): string {
  return `T#${keySegment('tenantId', tenantId)}`;
}

export interface TableKey {
  pk: string;
  sk: string;
}

/** `T#<tenant>#U#<user>`: the user's partition in Inbox, ReadMarks and Connections. */
export function userPartition(tenantId: string, userId: string): string {
  return `${tenantKeyPrefix(tenantId)}#U#${keySegment('userId', userId)}`;
}

/** Sort key of the item that holds both high-water marks (read and seen). */
// Named so it sorts after every `READ#<ulid>` ('M' > '#'): one descending query from the top
// returns the marks first, then the newest single-read exceptions.
export const READ_MARK_SK = 'READMARK';
const READ_EXCEPTION_PREFIX = 'READ#';
// `READEX#` sorts between every `READ#<ulid>` ('E' > '#') and `READMARK` ('E' < 'M'): the same
// descending query returns the mark, then every per-item state exception, then the single reads.
const ITEM_STATE_PREFIX = 'READEX#';
/** Tenant-level partition of retraction records (Inbox table), one item per retracted event. */
const RETRACTIONS_SEGMENT = 'RETRACTIONS';

/** API Gateway connection ids are short base64-like strings; no `#`. */
export const CONNECTION_ID_PATTERN = /^[A-Za-z0-9+/=_-]{1,128}$/;

function assertConnectionId(value: string): string {
  return assertIdentifierMatching('connectionId', value, CONNECTION_ID_PATTERN);
}

function assertIdentifierMatching(kind: string, value: string, pattern: RegExp): string {
  if (!pattern.test(value)) throw new InvalidIdentifierError(kind, value);
  return value;
}

const CONNECTION_PREFIX = 'C#';
const PRESENCE_SK = 'PRESENCE';

/** Ends every FOLLOWING_CELEBS partition key (the upgrade backfill filters a Scan with it). */
export const FOLLOWING_CELEBS_SUFFIX = '#FOLLOWING_CELEBS';
const FOLLOWED_CELEBS_PACK_SUFFIX = '#FOLLOWED_CELEBS_PACK';
const PACK_CHUNK_PREFIX = 'C#';

function packChunkKey(packPartition: string, chunk: number): TableKey {
  if (!Number.isInteger(chunk) || chunk < 0 || chunk >= FOLLOWED_PACK_CHUNKS) throw new RangeError(`pack chunk out of range: ${chunk}`);
  return { pk: packPartition, sk: `${PACK_CHUNK_PREFIX}${chunk}` };
}

/** The connection id in a `C#<connectionId>` sort key (connection and online-subscription items). */
export function connectionIdFromSortKey(sk: string): string | undefined {
  return sk.startsWith(CONNECTION_PREFIX) ? sk.slice(CONNECTION_PREFIX.length) : undefined;
}

export const keys = {
  inboxItem: (tenantId: string, userId: string, notificationId: string): TableKey => ({
    pk: userPartition(tenantId, userId),
    sk: notificationId,
  }),

  /** A celebrity's feed shard: `T#<tenant>#F#<actor>#S<n>`. Every feed event is written to each shard. */
  feedShardPartition: (tenantId: string, actorId: string, shard: number): string =>
    `${tenantKeyPrefix(tenantId)}#F#${keySegment('actorId', actorId)}#S${shard}`,

  feedItem: (tenantId: string, actorId: string, shard: number, notificationId: string): TableKey => ({
    pk: keys.feedShardPartition(tenantId, actorId, shard),
    sk: notificationId,
  }),

  readMark: (tenantId: string, userId: string): TableKey => ({
    pk: userPartition(tenantId, userId),
    sk: READ_MARK_SK,
  }),

  readException: (tenantId: string, userId: string, notificationId: string): TableKey => ({
    pk: userPartition(tenantId, userId),
    sk: `${READ_EXCEPTION_PREFIX}${notificationId}`,
  }),

  /** Sort-key range that holds every single-read exception and, last, the mark item. */
  readStateRange: { from: READ_EXCEPTION_PREFIX, to: READ_MARK_SK },

  notificationIdFromReadException: (sk: string): string | undefined =>
    sk.startsWith(READ_EXCEPTION_PREFIX) ? sk.slice(READ_EXCEPTION_PREFIX.length) : undefined,

  /**
   * ReadMarks: a notification's per-item state that differs from the marks (unread below the read
   * mark, seen, archived, unarchived, deleted, snoozed), keyed by notification id, so it works for
   * own items and celebrity-feed items alike. TTL like the inbox.
   */
  itemState: (tenantId: string, userId: string, notificationId: string): TableKey => ({
    pk: userPartition(tenantId, userId),
    sk: `${ITEM_STATE_PREFIX}${notificationId}`,
  }),

  /** ReadMarks: the single read and the per-item state of one notification of an inbox partition (`pk` as stored: its segments may be hashed). */
  readStateOfInboxItem: (inboxPk: string, notificationId: string): TableKey[] => [
    { pk: inboxPk, sk: `${READ_EXCEPTION_PREFIX}${notificationId}` },
    { pk: inboxPk, sk: `${ITEM_STATE_PREFIX}${notificationId}` },
  ],

  notificationIdFromItemState: (sk: string): string | undefined =>
    sk.startsWith(ITEM_STATE_PREFIX) ? sk.slice(ITEM_STATE_PREFIX.length) : undefined,

  /** Inbox table: the tenant's retracted events (`T#<tenant>#RETRACTIONS`), read with one Query. */
  retractionsPartition: (tenantId: string): string => `${tenantKeyPrefix(tenantId)}#${RETRACTIONS_SEGMENT}`,

  /**
   * Inbox table: one retracted event. The arrival time leads so a range of ids maps to a range of
   * keys; the event id is free text and comes last.
   */
  retraction: (tenantId: string, type: string, eventId: string, arrivalMs: number): TableKey => ({
    pk: keys.retractionsPartition(tenantId),
    sk: `${String(arrivalMs).padStart(15, '0')}#${assertIdentifierMatching('type', type, TYPE_NAME_PATTERN)}#${eventId}`,
  }),

  /** Graph: one item per follower of `userId` (sk = follower id). */
  followersPartition: (tenantId: string, userId: string): string =>
    `${userPartition(tenantId, userId)}#FOLLOWERS`,
  /** The followee's PROFILE key next to a FOLLOWERS partition (the erasure lowers its count knowing only the edge's pk); undefined for any other pk. */
  profileOfFollowersPartition: (followersPk: string): TableKey | undefined =>
    followersPk.endsWith('#FOLLOWERS') ? { pk: `${followersPk.slice(0, -'#FOLLOWERS'.length)}#PROFILE`, sk: 'PROFILE' } : undefined,
  follower: (tenantId: string, followeeId: string, followerId: string): TableKey => ({
    pk: keys.followersPartition(tenantId, followeeId),
    sk: assertIdentifier('followerId', followerId),
  }),

  /** Graph: one item per celebrity that `userId` follows (sk = celebrity id, holds followedAt). */
  followingCelebsPartition: (tenantId: string, userId: string): string =>
    `${userPartition(tenantId, userId)}${FOLLOWING_CELEBS_SUFFIX}`,
  followingCeleb: (tenantId: string, userId: string, celebrityId: string): TableKey => ({
    pk: keys.followingCelebsPartition(tenantId, userId),
    sk: assertIdentifier('celebrityId', celebrityId),
  }),

  /** Graph: the packed copy of the user's FOLLOWING_CELEBS (src/core/followed-pack.ts), one Query reads it all. */
  followedCelebsPackPartition: (tenantId: string, userId: string): string =>
    `${userPartition(tenantId, userId)}${FOLLOWED_CELEBS_PACK_SUFFIX}`,
  /** Graph: one chunk item of the pack (`C#<chunk>`); its String Set `f` holds `<followedAt ms>:<celebrityId>` elements. */
  followedCelebsPack: (tenantId: string, userId: string, chunk: number): TableKey =>
    packChunkKey(keys.followedCelebsPackPartition(tenantId, userId), chunk),
  /**
   * The chunk key next to a FOLLOWING_CELEBS partition (the upgrade backfill knows only the edge's pk,
   * whose segments may be hashed); undefined for any other pk.
   */
  followedCelebsPackOfEdgePartition: (followingCelebsPk: string, chunk: number): TableKey | undefined =>
    followingCelebsPk.endsWith(FOLLOWING_CELEBS_SUFFIX)
      ? packChunkKey(`${followingCelebsPk.slice(0, -FOLLOWING_CELEBS_SUFFIX.length)}${FOLLOWED_CELEBS_PACK_SUFFIX}`, chunk)
      : undefined,
  isFollowingCelebsPartition: (pk: string): boolean => pk.endsWith(FOLLOWING_CELEBS_SUFFIX),
  isFollowedCelebsPackPartition: (pk: string): boolean => pk.endsWith(FOLLOWED_CELEBS_PACK_SUFFIX),

  /** Graph: an upgrade's done marker (not tenant-led: written by the operator's migration, never by a tenant role). */
  migrationMarker: (name: string): TableKey => ({
    pk: `MIGRATION#${assertIdentifierMatching('migration', name, /^[a-z0-9-]{1,64}$/)}`,
    sk: 'MIGRATION',
  }),

  /** Connections: one item per live connection of a user (`C#<connectionId>`), TTL just over 2 h. */
  connection: (tenantId: string, userId: string, connectionId: string): TableKey => ({
    pk: userPartition(tenantId, userId),
    sk: `${CONNECTION_PREFIX}${assertConnectionId(connectionId)}`,
  }),

  /**
   * Connections: the reverse item, found from the connection id alone ($disconnect, 410 cleanup).
   * Not tenant-led on purpose: API Gateway connection ids are unique per API, and only the
   * platform's WebSocket functions (never a tenant-clamped role) touch it.
   */
  connectionReverse: (connectionId: string): TableKey => ({
    pk: `CONN#${assertConnectionId(connectionId)}`,
    sk: 'CONN',
  }),

  /** Connections: a user's presence, the set of their connection ids; BatchGetItem reads 100 users per call. */
  presence: (tenantId: string, userId: string): TableKey => ({
    pk: userPartition(tenantId, userId),
    sk: PRESENCE_SK,
  }),

  /** Connections: the online subscribers of a celebrity, one shard of `T#<tenant>#U#<actor>#ONLINE#S<n>`. */
  onlineSubscribersPartition: (tenantId: string, actorId: string, shard: number): string =>
    `${userPartition(tenantId, actorId)}#ONLINE#S${shard}`,
  onlineSubscription: (tenantId: string, actorId: string, shard: number, connectionId: string): TableKey => ({
    pk: keys.onlineSubscribersPartition(tenantId, actorId, shard),
    sk: `${CONNECTION_PREFIX}${assertConnectionId(connectionId)}`,
  }),

  /** Idempotency table: the (notification, connection) delivery record, written before a push. */
  deliveryRecordId: (notificationId: string, connectionId: string): string =>
    `DLV#${notificationId}#${assertConnectionId(connectionId)}`,

  /** Idempotency table: a once-only step of a celebrity post's live delivery (the split, each next-page job). */
  deliveryStepId: (notificationId: string, step: string): string =>
    `DLS#${notificationId}#${assertIdentifierMatching('step', step, /^[A-Za-z0-9]{1,64}$/)}`,

  /** Graph: follower count, tier and newest feed id of an account. */
  profile: (tenantId: string, userId: string): TableKey => ({
    pk: `${userPartition(tenantId, userId)}#PROFILE`,
    sk: 'PROFILE',
  }),

  /** Graph: the user's delivery preferences, next to the profile (one GetItem; BatchGetItem for 100 users). */
  preferences: (tenantId: string, userId: string): TableKey => ({
    pk: `${userPartition(tenantId, userId)}#PROFILE`,
    sk: 'PREFERENCES',
  }),

  /**
   * Idempotency table: an event's arrival stamp (the time part of its notification ids), one per
   * (tenant, type, producer event id). The event id is last, so any character in it is unambiguous.
   */
  arrivalRecordId: (tenantId: string, type: string, eventId: string): string => `${tenantKeyPrefix(tenantId)}#ARRIVAL#${type}#${eventId}`,

  /** Inbox table: an author's recent inbox-mode posts (`T#<tenant>#P#<author>` / post log id), TTL like the inbox. */
  postsLogPartition: (tenantId: string, authorId: string): string => `${tenantKeyPrefix(tenantId)}#P#${keySegment('authorId', authorId)}`,

  /** Inbox table: one reader shard of the tenant's celebrity posts log (`T#<tenant>#CP#S<n>` / feed id), TTL like the feeds. */
  celebrityPostsPartition: (tenantId: string, shard: number): string => `${tenantKeyPrefix(tenantId)}#CP#S${shard}`,

  /**
   * Inbox table: one reader shard of the tenant's celebrity posts COUNT INDEX (`T#<tenant>#CPX#S<n>`):
   * one item per time slot (sk = the slot's 10-character id time prefix, `#<n>` for an overflow item),
   * holding one attribute per post (name = post id, value = its author, type and expiry), so a count
   * reads hundreds of posts in a few items.
   */
  celebrityPostsIndexPartition: (tenantId: string, shard: number): string => `${tenantKeyPrefix(tenantId)}#CPX#S${shard}`,
  isCelebrityPostsIndexPartition: (pk: string): boolean => /#CPX#S\d+$/.test(pk),
  /** The count index partition of a posts log partition (the upgrade backfill knows only the log's keys); undefined for any other pk. */
  celebrityPostsIndexPartitionOfLog: (logPk: string): string | undefined => (/#CP#S\d+$/.test(logPk) ? logPk.replace(/#CP#S(\d+)$/, '#CPX#S$1') : undefined),
  celebrityPostsIndexSlot: (indexPk: string, slotPrefix: string, overflow = 0): TableKey => ({
    pk: indexPk,
    sk: overflow === 0 ? slotPrefix : `${slotPrefix}#${overflow}`,
  }),

  /** Idempotency table: the user's live-push counter of one rate-limit window (TTL). */
  rateWindowId: (tenantId: string, userId: string, windowStartMs: number): string =>
    `${userPartition(tenantId, userId)}#RATE#${windowStartMs}`,

  /** Idempotency table: the user's live pushes held until `releaseAtMs` (quiet hours, rate limit), TTL. */
  liveHoldId: (tenantId: string, userId: string, releaseAtMs: number): string =>
    `${userPartition(tenantId, userId)}#HOLD#${releaseAtMs}`,

  /** Graph: a user's push devices, push consent, email address and email unsubscribes (one Query reads them all). */
  channelStatePartition: (tenantId: string, userId: string): string => `${userPartition(tenantId, userId)}#CHANNELS`,
  deviceSortKey: (deviceId: string): string => `DEVICE#${assertIdentifierMatching('deviceId', deviceId, /^d_[A-Za-z0-9_-]{22}$/)}`,
  /** Idempotency table: one push or email send of (notification, recipient, channel[, device]), 30-day TTL. */
  channelSendId: (tenantId: string, userId: string, channel: string, notificationId: string, deviceId?: string): string =>
    `${userPartition(tenantId, userId)}#SEND#${channel}#${notificationId}${deviceId === undefined ? '' : `#${deviceId}`}`,
  /** Idempotency table: the user's messages on one channel in one rate-limit window (TTL). */
  channelRateWindowId: (tenantId: string, userId: string, channel: string, windowStartMs: number): string =>
    `${userPartition(tenantId, userId)}#CHRATE#${channel}#${windowStartMs}`,

  /**
   * Idempotency table: one stage's delivery-trace record of an event, for a user or (no user) the
   * whole event, TTL. The event id comes last: it is free text, so nothing may follow it.
   */
  traceRecordId: (tenantId: string, userId: string | undefined, stage: string, eventId: string): string =>
    `${userId === undefined ? `${tenantKeyPrefix(tenantId)}#E` : userPartition(tenantId, userId)}#TRACE#${stage}#${eventId}`,

  /** Idempotency table: an erasure's tombstone and checkpoint, keyed by a digest of (tenant, user) so it does not name them (src/core/erasure.ts). */
  erasureRecordId: (tenantId: string, digest: string): string =>
    `${tenantKeyPrefix(tenantId)}#ERASED#${assertIdentifierMatching('digest', digest, /^[A-Za-z0-9_-]{43}$/)}`,

  /** Idempotency table (audit trail): the user's pseudonym salt, no TTL; deleting it at erasure unlinks their audit records. */
  auditSaltId: (tenantId: string, userId: string): string => `${userPartition(tenantId, userId)}#AUDITSALT`,
};

/** Idempotency table: the fan-out handler's Powertools `keyPrefix`; Powertools keys its records `fanout#<base64 MD5 of [type, tenant, event id]>`. */
export const FAN_OUT_IDEMPOTENCY_PREFIX = 'fanout';

// ---------------------------------------------------------------------------------------------
// Parsing: a stored key back into its kind and ids, for code that classifies stored items
// (erasure, export, migrations) without matching strings.

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
  | ({ kind: 'postsLogEntry'; authorId: KeyId; postId: string } & Tenanted)
  | ({ kind: 'celebrityPost'; shard: number; notificationId: string } & Tenanted)
  | ({ kind: 'celebrityPostsIndexSlot'; shard: number; slot: string; overflow: number } & Tenanted)
  // ReadMarks table
  | ({ kind: 'readMark'; userId: KeyId } & Tenanted)
  | ({ kind: 'readException' | 'itemState'; userId: KeyId; notificationId: string } & Tenanted)
  // Connections table
  | ({ kind: 'connection'; userId: KeyId; connectionId: string } & Tenanted)
  | ({ kind: 'presence'; userId: KeyId } & Tenanted)
  | { kind: 'connectionReverse'; connectionId: string }
  | ({ kind: 'onlineSubscription'; actorId: KeyId; shard: number; connectionId: string } & Tenanted)
  // Graph table
  | ({ kind: 'follower'; followeeId: KeyId; followerId: string } & Tenanted)
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
  /** A trace record: of one user, or (no `userId`) of the whole event. */
  | ({ kind: 'traceRecord'; userId?: KeyId; stage: string; eventId: string } & Tenanted)
  | ({ kind: 'erasureRecord'; digest: string } & Tenanted)
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
      const readId = after(sk, READ_EXCEPTION_PREFIX);
      return readId === undefined ? undefined : { kind: 'readException', ...base, notificationId: readId };
    }
    case 'FOLLOWERS':
      return IDENTIFIER_PATTERN.test(sk) ? { kind: 'follower', tenantId, followeeId: userId, followerId: sk } : undefined;
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
  if (kind === 'AUDITSALT' && count === 2) return { kind: 'auditSalt', ...base };
  if (kind === 'CHRATE' && count === 4) {
    const channel = matching(first, LOWER_WORD);
    const windowStartMs = numberOf(second, EPOCH_MS);
    return channel && windowStartMs !== undefined ? { kind: 'channelRateWindow', ...base, channel, windowStartMs } : undefined;
  }
  const stage = kind === 'TRACE' ? matching(first, LOWER_WORD) : undefined;
  return stage && traceEventId !== undefined ? { kind: 'traceRecord', ...base, stage, eventId: traceEventId } : undefined;
}
