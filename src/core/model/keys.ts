/**
 * Every DynamoDB key of the system is built here, and only here; `key-parsing.ts` beside it reads a
 * stored key back into its kind and ids, from the same constants.
 *
 * Partition keys start with the tenant as a literal leading segment (`T#<tenant>#...`) so an IAM
 * `dynamodb:LeadingKeys` condition can clamp a role to one tenant.
 */
import { createHash } from 'node:crypto';
import { InvalidIdentifierError } from './errors.js';
import { TYPE_NAME_PATTERN } from './ids.js';
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

/**
 * A user's partition (`userPartition`) as an IAM `dynamodb:LeadingKeys` StringLike pattern. `*` also
 * matches `#`, so a feed shard of an actor whose id is `U` (`T#t#F#U#S1`) matches it too: a grant
 * narrowed to user partitions pairs it with StringNotLike FEED_SHARD_KEY_PATTERN (no user partition has `#F#`).
 */
export const USER_PARTITION_KEY_PATTERN = 'T#*#U#*';
/** Every feed shard partition (`feedShardPartition`), as an IAM StringLike pattern. */
export const FEED_SHARD_KEY_PATTERN = 'T#*#F#*';
/** Graph: a user's PROFILE partition (the profile and the preferences items), as an IAM StringLike pattern; no other partition ends with `#PROFILE`. */
export const PROFILE_PARTITION_KEY_PATTERN = 'T#*#U#*#PROFILE';
/** Graph: a user's channel state (`channelStatePartition`), as an IAM StringLike pattern. */
export const CHANNEL_STATE_KEY_PATTERN = 'T#*#U#*#CHANNELS';
/** Graph: a user's packed followed-celebrities list (`followedCelebsPackPartition`), as an IAM StringLike pattern. */
export const FOLLOWED_CELEBS_PACK_KEY_PATTERN = 'T#*#U#*#FOLLOWED_CELEBS_PACK';

/** Graph: an account's follower items (`followersPartition`), as an IAM StringLike pattern (`#FORMER_FOLLOWERS` does not match). */
export const FOLLOWERS_KEY_PATTERN = 'T#*#U#*#FOLLOWERS';
/** Graph: an account's post alert subscribers (`alertSubscribersPartition`), as an IAM StringLike pattern. */
export const ALERT_SUBSCRIBERS_KEY_PATTERN = 'T#*#U#*#ALERTS';
/** Graph: a follower's references to their alert subscriptions (`alertingPartition`), as an IAM StringLike pattern. */
export const ALERTING_KEY_PATTERN = 'T#*#U#*#ALERTING';

/** Every tenant's retraction list (`retractionsPartition`), as an IAM `dynamodb:LeadingKeys` StringLike pattern. */
export const RETRACTIONS_KEY_PATTERN = 'T#*#RETRACTIONS';

/** Every count index partition (`celebrityPostsIndexPartition`), as an IAM `dynamodb:LeadingKeys` StringLike pattern. */
export const CELEBRITY_POSTS_INDEX_KEY_PATTERN = 'T#*#CPX#S*';

/** Every user's trace partition (`userTracePartition`), as an IAM `dynamodb:LeadingKeys` StringLike pattern (a user segment never holds `#`). */
export const USER_TRACE_KEY_PATTERN = 'T#*#U#*#TRACE';

/** Every schedule reference (`scheduleRefId`), as an IAM `dynamodb:LeadingKeys` StringLike pattern. */
export const SCHEDULE_REF_KEY_PATTERN = 'T#*#U#*#SCHED#*';

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
export const READ_EXCEPTION_PREFIX = 'READ#';
// `READEX#` sorts between every `READ#<ulid>` ('E' > '#') and `READMARK` ('E' < 'M'): the same
// descending query returns the mark, then every per-item state exception, then the single reads.
export const ITEM_STATE_PREFIX = 'READEX#';
// `READL#` sorts between every `READEX#<ulid>` ('L' > 'E') and `READMARK` ('L' < 'M'): the marks
// item's descending query returns the late arrivals' markers right after the marks.
export const LATE_ARRIVAL_PREFIX = 'READL#';
/** Tenant-level partition of retraction records (Inbox table), one item per retracted event. */
export const RETRACTIONS_SEGMENT = 'RETRACTIONS';

/** API Gateway connection ids are short base64-like strings; no `#`. */
export const CONNECTION_ID_PATTERN = /^[A-Za-z0-9+/=_-]{1,128}$/;

function assertConnectionId(value: string): string {
  return assertIdentifierMatching('connectionId', value, CONNECTION_ID_PATTERN);
}

function assertIdentifierMatching(kind: string, value: string, pattern: RegExp): string {
  if (!pattern.test(value)) throw new InvalidIdentifierError(kind, value);
  return value;
}

export const CONNECTION_PREFIX = 'C#';
export const PRESENCE_SK = 'PRESENCE';

/** Ends every FOLLOWING_CELEBS partition key (the upgrade backfill filters a Scan with it). */
export const FOLLOWING_CELEBS_SUFFIX = '#FOLLOWING_CELEBS';
export const FOLLOWED_CELEBS_PACK_SUFFIX = '#FOLLOWED_CELEBS_PACK';
export const PACK_CHUNK_PREFIX = 'C#';

function packChunkKey(packPartition: string, chunk: number): TableKey {
  if (!Number.isInteger(chunk) || chunk < 0 || chunk >= FOLLOWED_PACK_CHUNKS) throw new RangeError(`pack chunk out of range: ${chunk}`);
  return { pk: packPartition, sk: `${PACK_CHUNK_PREFIX}${chunk}` };
}

/** The connection id in a `C#<connectionId>` sort key (connection and online-subscription items). */
export function connectionIdFromSortKey(sk: string): string | undefined {
  return sk.startsWith(CONNECTION_PREFIX) ? sk.slice(CONNECTION_PREFIX.length) : undefined;
}

/** A phone number's digest: the tenantless SMS records name no number in clear (the inbound topic names no tenant). */
function smsNumberDigest(phoneNumber: string): string {
  return createHash('sha256').update(phoneNumber).digest('base64url');
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

  /** ReadMarks: the single read, the per-item state and the late arrival's marker of one notification of an inbox partition (`pk` as stored: its segments may be hashed). */
  readStateOfInboxItem: (inboxPk: string, notificationId: string): TableKey[] => [
    { pk: inboxPk, sk: `${READ_EXCEPTION_PREFIX}${notificationId}` },
    { pk: inboxPk, sk: `${ITEM_STATE_PREFIX}${notificationId}` },
    { pk: inboxPk, sk: `${LATE_ARRIVAL_PREFIX}${notificationId}` },
  ],

  notificationIdFromItemState: (sk: string): string | undefined =>
    sk.startsWith(ITEM_STATE_PREFIX) ? sk.slice(ITEM_STATE_PREFIX.length) : undefined,

  /** ReadMarks: the marker of an own item that landed late under an older id (src/core/model/counts-floor.ts), TTL like the item. */
  lateArrival: (tenantId: string, userId: string, notificationId: string): TableKey => ({
    pk: userPartition(tenantId, userId),
    sk: `${LATE_ARRIVAL_PREFIX}${notificationId}`,
  }),

  notificationIdFromLateArrival: (sk: string): string | undefined =>
    sk.startsWith(LATE_ARRIVAL_PREFIX) ? sk.slice(LATE_ARRIVAL_PREFIX.length) : undefined,

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

  /**
   * Graph: the accounts `userId` follows (sk = followee id, holds followedAt), written with each
   * follow edge; an unfollow keeps it with `unfollowedAt` and a TTL, so the erasure of the follower
   * finds their edges and their entries in `formerFollowers` without a scan.
   */
  followingPartition: (tenantId: string, userId: string): string => `${userPartition(tenantId, userId)}#FOLLOWING`,
  following: (tenantId: string, followerId: string, followeeId: string): TableKey => ({
    pk: keys.followingPartition(tenantId, followerId),
    sk: assertIdentifier('followeeId', followeeId),
  }),

  /**
   * Graph: the accounts that followed `userId` and unfollowed (sk = follower id; first followedAt,
   * last unfollowedAt, TTL = the inbox's after the unfollow): their inboxes still hold the posts
   * `userId` wrote while they followed, which the erasure of `userId` finds from here and the recent posts log.
   */
  formerFollowersPartition: (tenantId: string, userId: string): string => `${userPartition(tenantId, userId)}#FORMER_FOLLOWERS`,
  formerFollower: (tenantId: string, followeeId: string, followerId: string): TableKey => ({
    pk: keys.formerFollowersPartition(tenantId, followeeId),
    sk: assertIdentifier('followerId', followerId),
  }),

  /** Graph: one item per celebrity that `userId` follows (sk = celebrity id, holds followedAt). */
  followingCelebsPartition: (tenantId: string, userId: string): string =>
    `${userPartition(tenantId, userId)}${FOLLOWING_CELEBS_SUFFIX}`,
  followingCeleb: (tenantId: string, userId: string, celebrityId: string): TableKey => ({
    pk: keys.followingCelebsPartition(tenantId, userId),
    sk: assertIdentifier('celebrityId', celebrityId),
  }),

  /** Graph: the packed copy of the user's FOLLOWING_CELEBS (src/core/model/followed-pack.ts), one Query reads it all. */
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

  /**
   * Inbox table: the author's RECENT POSTS LOG, their recent inbox-mode posts a late follow backfills from
   * (`T#<tenant>#P#<author>` / post log id), TTL like the inbox. Not the tenant's celebrity posts log below.
   */
  recentPostsPartition: (tenantId: string, authorId: string): string => `${tenantKeyPrefix(tenantId)}#P#${keySegment('authorId', authorId)}`,

  /** Inbox table: one reader shard of the tenant's CELEBRITY POSTS LOG (`T#<tenant>#CP#S<n>` / feed id), TTL like the feeds. Not an author's recent posts log above. */
  celebrityPostsPartition: (tenantId: string, shard: number): string => `${tenantKeyPrefix(tenantId)}#CP#S${shard}`,

  /**
   * Inbox table: one reader shard of the tenant's celebrity posts COUNT INDEX (`T#<tenant>#CPX#S<n>`):
   * one item per time slot (sk = the slot's 10-character id time prefix, `#<n>` for an overflow item),
   * holding one attribute per post (name = post id, value = its author, type and expiry), so a count
   * reads hundreds of posts in a few items.
   */
  celebrityPostsIndexPartition: (tenantId: string, shard: number): string => `${tenantKeyPrefix(tenantId)}#CPX#S${shard}`,
  isCelebrityPostsIndexPartition: (pk: string): boolean => /#CPX#S\d+$/.test(pk),
  /** The count index partition of a celebrity posts log partition (the upgrade backfill knows only the log's keys); undefined for any other pk. */
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

  /** Graph: the followers of `accountId` who turned post alerts on (sk = follower id): paged by a post's alert jobs. */
  alertSubscribersPartition: (tenantId: string, accountId: string): string => `${userPartition(tenantId, accountId)}#ALERTS`,
  alertSubscriber: (tenantId: string, accountId: string, followerId: string): TableKey => ({
    pk: keys.alertSubscribersPartition(tenantId, accountId),
    sk: assertIdentifierMatching('userId', followerId, IDENTIFIER_PATTERN),
  }),
  /**
   * Graph: the follower's own list of the accounts they turned post alerts on for (sk = account id),
   * the owner reference of each subscription (which lives under the account): their erasure and
   * export find their subscriptions from it without a Scan.
   */
  alertingPartition: (tenantId: string, followerId: string): string => `${userPartition(tenantId, followerId)}#ALERTING`,
  alerting: (tenantId: string, followerId: string, accountId: string): TableKey => ({
    pk: keys.alertingPartition(tenantId, followerId),
    sk: assertIdentifierMatching('userId', accountId, IDENTIFIER_PATTERN),
  }),

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
   * whole event, TTL. The event id comes last: it is free text, so nothing may follow it. A user's
   * records are written to `userTrace` now (their own partition); this form is read for older ones.
   */
  traceRecordId: (tenantId: string, userId: string | undefined, stage: string, eventId: string): string =>
    `${userId === undefined ? `${tenantKeyPrefix(tenantId)}#E` : userPartition(tenantId, userId)}#TRACE#${stage}#${eventId}`,

  /** Inbox table: a user's delivery-trace records (`T#t#U#u#TRACE` / `<stage>#<event id>`), TTL; the erasure deletes the partition whole. */
  userTracePartition: (tenantId: string, userId: string): string => `${userPartition(tenantId, userId)}#TRACE`,
  userTrace: (tenantId: string, userId: string, stage: string, eventId: string): TableKey => ({
    pk: keys.userTracePartition(tenantId, userId),
    sk: `${assertIdentifierMatching('stage', stage, /^[a-z]{1,32}$/)}#${eventId}`,
  }),

  /**
   * Idempotency table: a pending one-time schedule that names the user (`T#t#U#u#SCHED#<schedule
   * name>`), written with the schedule, TTL a while after it fires: the erasure deletes the schedule
   * by the name in the key, found through the owner index (`ownerIndexValue`).
   */
  scheduleRefId: (tenantId: string, userId: string, scheduleName: string): string =>
    `${userPartition(tenantId, userId)}#SCHED#${assertIdentifierMatching('scheduleName', scheduleName, /^[0-9a-zA-Z\-_.]{1,64}$/)}`,

  /** Idempotency table: an export job's status record (`T#t#EXPORT#<job id>`), TTL; it holds no user id. */
  exportJobId: (tenantId: string, jobId: string): string =>
    `${tenantKeyPrefix(tenantId)}#EXPORT#${assertIdentifierMatching('jobId', jobId, /^[0-9A-HJKMNP-TV-Z]{26}$/)}`,

  /** Idempotency table: an erasure's tombstone and checkpoint, keyed by a digest of (tenant, user) so it does not name them (src/core/privacy/erasure.ts). */
  erasureRecordId: (tenantId: string, digest: string): string =>
    `${tenantKeyPrefix(tenantId)}#ERASED#${assertIdentifierMatching('digest', digest, /^[A-Za-z0-9_-]{43}$/)}`,

  /** Idempotency table (audit trail): the user's pseudonym salt, no TTL; deleting it at erasure unlinks their audit records. */
  auditSaltId: (tenantId: string, userId: string): string => `${userPartition(tenantId, userId)}#AUDITSALT`,

  /**
   * Idempotency table: a phone number on the SMS opt-out list (STOP), keyed by a digest of the E.164
   * number (the inbound topic names no tenant; a number that said STOP is never texted again, whoever
   * opted it in), no TTL.
   */
  smsOptOutId: (phoneNumber: string): string => `SMS#OPTOUT#${smsNumberDigest(phoneNumber)}`,
  /** Idempotency table: a keyword answer sent to a number on one UTC day (self-managed opt-outs: one per number, keyword and day), TTL. */
  smsAnswerId: (phoneNumber: string, keyword: 'help' | 'stop' | 'start', dayStartMs: number): string => `SMS#ANSWER#${smsNumberDigest(phoneNumber)}#${keyword.toUpperCase()}#${dayStartMs}`,
  /** Idempotency table: texts sent in all on one UTC day (the global spend guard), TTL. */
  smsSpendDayId: (dayStartMs: number): string => `SMS#SPEND#${dayStartMs}`,
  /** Idempotency table: one user's texts on one UTC day (the per-user spend guard): a channel rate window of the `smsday` pseudo-channel. */
  smsUserDayId: (tenantId: string, userId: string, dayStartMs: number): string => keys.channelRateWindowId(tenantId, userId, 'smsday', dayStartMs),
};

/**
 * The owner index: the attribute (`userRef`) that puts a record of one user into the table's
 * sparse `byUser` index (Idempotency: rate windows, holds, channel sends and rate windows, schedule
 * refs, event traces about an account), and the author index attribute (`authorRef`, Inbox) of a
 * notification written into another user's inbox that the author's recent posts log cannot find.
 * Both values are the user's partition (`T#t#U#u`): one Query lists what names them.
 */
export const OWNER_INDEX = { name: 'byUser', attribute: 'userRef' } as const;
export const AUTHOR_INDEX = { name: 'byAuthor', attribute: 'authorRef' } as const;
export function ownerIndexValue(tenantId: string, userId: string): string {
  return userPartition(tenantId, userId);
}

/** Idempotency table: the fan-out handler's Powertools `keyPrefix`; Powertools keys its records `fanout#<base64 MD5 of [type, tenant, event id]>`. */
export const FAN_OUT_IDEMPOTENCY_PREFIX = 'fanout';
