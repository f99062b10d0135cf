/**
 * Which stored item names a user, and in which role, decided from its key kind (`parseKey`) and the
 * attributes that carry a role, never from free-form values (`data`, titles, bodies, preference
 * values, trace text): the erasure's classifier. Every kind keys.ts builds is listed below with what
 * an erasure does to it:
 *
 * - belongs to the user (their partition, or a record keyed by their id): deleted;
 * - names the user in a role: the recipient's copy of a notification the user authored (its actor),
 *   a follow edge or subscription where they are follower or followee, a post alert subscription
 *   where they are the subscriber or the account (and the subscriber's reference to it), a celebrity post they
 *   authored, an event trace about their feed, a follow's trace where they are the followee: deleted; a shared item (another user's followed-
 *   celebrities pack, a posts count index slot, a connection's list of followed celebrities, another
 *   user's held live pushes, the fan-out's result of a tier change): only the user's part goes;
 * - does not name them (another user's item, tenant-level records, arrival stamps, delivery dedup
 *   records, retractions, migration markers, tombstones): kept, byte for byte;
 * - a key no builder writes: kept as `unknown` (the eraser counts and logs it), never deleted on a guess.
 */
import { deliveryJobSchema } from '../jobs/delivery-job.js';
import { type ErasureSubject, type SharedItemPartsNamingUser, type RemovePart } from './erasure.js';
import { validateEventBridgeBody, type ValidateEventInput } from '../fanout/events.js';
import { FOLLOWED_PACK_ATTRIBUTE, followedPackElementsOf } from '../model/followed-pack.js';
import { indexEntriesOfAuthor } from '../model/celebrity-posts-index.js';
import { keySegment, keys, type TableKey } from '../model/keys.js';
import type { TableName } from '../../table-specs.js';
import { parseKey, type KeyId, type KeyKind } from '../model/key-parsing.js';

/** What the erasure does with one stored item; `kind` names it in the report. */
export type ItemVerdict =
  | { action: 'keep'; kind: string }
  | {
      action: 'delete';
      kind: string;
      /** An edge the user followed: the followee's PROFILE, whose count goes down by one if the edge was counted. */
      followeeProfile?: TableKey;
      /** The recipient's read-state items of a deleted notification (same partition, ReadMarks table). */
      readStateReferences?: TableKey[];
    }
  | { action: 'removeParts'; kind: string; parts: SharedItemPartsNamingUser }
  | { action: 'unknown'; kind: 'unknown'; reason: string };

/** The table each key kind lives in: a kind found in another table is unknown. */
const KIND_TABLES: Record<KeyKind, TableName> = {
  inboxItem: 'inbox',
  feedItem: 'inbox',
  retraction: 'inbox',
  postsLogEntry: 'inbox',
  celebrityPost: 'inbox',
  celebrityPostsIndexSlot: 'inbox',
  readMark: 'readMarks',
  readException: 'readMarks',
  itemState: 'readMarks',
  lateArrival: 'readMarks',
  userTrace: 'inbox',
  connection: 'connections',
  presence: 'connections',
  connectionReverse: 'connections',
  onlineSubscription: 'connections',
  follower: 'graph',
  followingEntry: 'graph',
  formerFollower: 'graph',
  followingCeleb: 'graph',
  followedCelebsPack: 'graph',
  profile: 'graph',
  preferences: 'graph',
  device: 'graph',
  alertSubscriber: 'graph',
  alertingEntry: 'graph',
  channelState: 'graph',
  migrationMarker: 'graph',
  deliveryRecord: 'idempotency',
  deliveryStep: 'idempotency',
  arrivalRecord: 'idempotency',
  rateWindow: 'idempotency',
  liveHold: 'idempotency',
  channelSend: 'idempotency',
  channelRateWindow: 'idempotency',
  traceRecord: 'idempotency',
  scheduleRef: 'idempotency',
  erasureRecord: 'idempotency',
  exportJob: 'idempotency',
  auditSalt: 'idempotency',
  fanOutIdempotencyRecord: 'idempotency',
  smsOptOut: 'idempotency',
  smsAnswer: 'idempotency',
  smsSpendDay: 'idempotency',
};

const keep = (kind: string): ItemVerdict => ({ action: 'keep', kind });
const remove = (kind: string, extra: Partial<Extract<ItemVerdict, { action: 'delete' }>> = {}): ItemVerdict => ({ action: 'delete', kind, ...extra });

/** The id in a role attribute (`actor.id` of a notification), read only from that path. */
function actorIdOf(notification: unknown): unknown {
  if (typeof notification !== 'object' || notification === null) return undefined;
  const actor = (notification as { actor?: unknown }).actor;
  return typeof actor === 'object' && actor !== null ? (actor as { id?: unknown }).id : undefined;
}

/** Decides one stored item of `table` for the erasure of `subject` (see the module comment). */
export function classifyStoredItem(table: TableName, item: Record<string, unknown>, subject: ErasureSubject): ItemVerdict {
  const parsed = parseKey(item);
  if (!parsed) return { action: 'unknown', kind: 'unknown', reason: 'no key kind of keys.ts' };
  if (KIND_TABLES[parsed.kind] !== table) return { action: 'unknown', kind: 'unknown', reason: `a ${parsed.kind} key in the ${table} table` };
  const { userId, tenantId } = subject;
  const tenantSegment = keySegment('tenantId', tenantId);
  if ('tenantId' in parsed && parsed.tenantId.segment !== tenantSegment) return keep('otherTenant');
  const userSegment = keySegment('userId', userId);
  const isUser = (id: KeyId | undefined) => id?.segment === userSegment;
  const authored = actorIdOf(item) === userId;
  switch (parsed.kind) {
    case 'inboxItem':
      if (isUser(parsed.userId)) return remove('inboxItem');
      // Another recipient's copy of a notification the user authored: deleted with its read state (README, erasure).
      return authored ? remove('authoredNotification', { readStateReferences: keys.readStateOfInboxItem(item.pk as string, parsed.notificationId) }) : keep('inboxItem');
    case 'feedItem':
      return isUser(parsed.actorId) || authored ? remove('feedItem') : keep('feedItem');
    case 'postsLogEntry':
      return isUser(parsed.authorId) || actorIdOf(item.notification) === userId ? remove('postsLogEntry') : keep('postsLogEntry');
    case 'celebrityPost':
      return item.authorId === userId || authored ? remove('celebrityPost') : keep('celebrityPost');
    case 'celebrityPostsIndexSlot': {
      const entries = indexEntriesOfAuthor(item, userId);
      return entries.length > 0 ? { action: 'removeParts', kind: 'celebrityPostIndexEntry', parts: { kind: 'celebrityPostIndexEntry', remove: entries.map((name) => ({ path: [name] })) } } : keep(parsed.kind);
    }
    case 'readMark':
    case 'readException':
    case 'itemState':
    case 'lateArrival':
    case 'connection':
    case 'presence':
    case 'profile':
    case 'preferences':
    case 'device':
    case 'channelState':
    case 'rateWindow':
    case 'channelSend':
    case 'channelRateWindow':
    case 'userTrace':
    case 'scheduleRef':
    case 'auditSalt':
      // (auditSalt: the audit trail's pseudonym salt; once it is gone, the user's audit records name nobody.)
      return isUser(parsed.userId) ? remove(parsed.kind) : keep(parsed.kind);
    case 'followingEntry':
      // Their own list of followees, or a follower's entry naming them as followee.
      return isUser(parsed.userId) ? remove('followingEntry') : parsed.followeeId === userId ? remove('followingEntryOfFollower') : keep(parsed.kind);
    case 'formerFollower':
      return isUser(parsed.followeeId) ? remove('formerFollower') : parsed.followerId === userId ? remove('formerFollowerEntry') : keep(parsed.kind);
    case 'connectionReverse':
      return classifyConnectionReverse(item, subject);
    case 'onlineSubscription':
      // The user's followers' subscriptions to their posts, or the user's own subscription to a celebrity.
      return isUser(parsed.actorId) ? remove('onlineSubscriber') : item.userId === userId ? remove('onlineSubscription') : keep(parsed.kind);
    case 'follower':
      if (isUser(parsed.followeeId)) return remove('followerEdge');
      return parsed.followerId === userId ? remove('followingEdge', { followeeProfile: keys.profileOfFollowersPartition(item.pk as string)! }) : keep(parsed.kind);
    case 'alertSubscriber':
      // The erased account's alert list goes whole (the account is gone: nothing to alert about); the
      // erased follower's subscription in another account's list goes too.
      return isUser(parsed.accountId) ? remove('alertSubscriber') : parsed.followerId === userId ? remove('alertSubscription') : keep(parsed.kind);
    case 'alertingEntry':
      // Their own list of subscriptions, or a subscriber's entry naming them as the account.
      return isUser(parsed.userId) ? remove('alertingEntry') : parsed.accountId === userId ? remove('alertingEntryOfSubscriber') : keep(parsed.kind);
    case 'followingCeleb':
      return isUser(parsed.userId) ? remove('followedCelebrity') : parsed.celebrityId === userId ? remove('followerOfCelebrity') : keep(parsed.kind);
    case 'followedCelebsPack':
      return isUser(parsed.userId) ? remove('followedCelebritiesPack') : packParts(item, userId);
    case 'liveHold':
      return isUser(parsed.userId) ? remove('liveHold') : heldPushParts(item, userId);
    case 'traceRecord': {
      const trace = item.trace as { actorId?: unknown; followeeId?: unknown } | undefined;
      // A follow's record, kept under the follower, names the followee by role.
      if (parsed.userId !== undefined) return isUser(parsed.userId) || trace?.followeeId === userId ? remove('traceRecord') : keep('traceRecord');
      return trace?.actorId === userId ? remove('eventTrace') : keep('eventTrace');
    }
    case 'fanOutIdempotencyRecord':
      return fanOutResultParts(item, userId);
    case 'retraction':
    case 'migrationMarker':
    case 'deliveryRecord':
    case 'deliveryStep':
    case 'arrivalRecord':
    case 'erasureRecord':
    case 'exportJob':
    case 'smsOptOut':
    case 'smsAnswer':
    case 'smsSpendDay':
      // (smsOptOut: a digest of a number and the last word it said, kept so a STOP is never texted past, whoever opts the
      // number in; smsAnswer: a digest of a number answered on a day, gone in 2 days; smsSpendDay: a count. None names a user.)
      return keep(parsed.kind);
  }
}

/** `CONN#<id>`: the owner (`tenantId`, `userId` attributes) or, in `celebrityIds`, a celebrity the owner follows. */
function classifyConnectionReverse(item: Record<string, unknown>, subject: ErasureSubject): ItemVerdict {
  if (typeof item.tenantId !== 'string' || typeof item.userId !== 'string') return { action: 'unknown', kind: 'unknown', reason: 'a connection reverse item without its owner' };
  if (item.tenantId !== subject.tenantId) return keep('otherTenant');
  if (item.userId === subject.userId) return remove('connectionReverse');
  const celebrities = Array.isArray(item.celebrityIds) ? item.celebrityIds : [];
  const indexes = celebrities.flatMap((celebrityId, index) => (celebrityId === subject.userId ? [index] : []));
  return listParts('connectionCelebrity', 'celebrityIds', indexes, []) ?? keep('connectionReverse');
}

/** Another user's pack chunk: the user's `<ms>:<id>` set elements, and the `@<id>` attribute of the unreleased format (dev data dirs). */
function packParts(item: Record<string, unknown>, userId: string): ItemVerdict {
  const elements = followedPackElementsOf(item, userId);
  const legacy = `@${userId}`;
  const parts: SharedItemPartsNamingUser = {
    kind: 'followedCelebritiesPackEntry',
    remove: Object.hasOwn(item, legacy) ? [{ path: [legacy] }] : [],
    ...(elements.length > 0 ? { setElements: [{ attribute: FOLLOWED_PACK_ATTRIBUTE, elements }] } : {}),
  };
  return parts.remove.length > 0 || elements.length > 0 ? { action: 'removeParts', kind: parts.kind, parts } : keep('followedCelebsPack');
}

/** Another user's hold: the held live pushes of notifications the user authored (`held[i].notification.actor.id`). */
function heldPushParts(item: Record<string, unknown>, userId: string): ItemVerdict {
  const held = Array.isArray(item.held) ? item.held : [];
  const indexes = held.flatMap((push, index) => (actorIdOf((push as { notification?: unknown } | null)?.notification) === userId ? [index] : []));
  return listParts('heldPush', 'held', indexes, ['notification', 'actor', 'id']) ?? keep('liveHold');
}

/** List elements out, highest index first (so a later update's indexes still hold), each guarded by the role it was chosen for. */
function listParts(kind: string, attribute: string, indexes: number[], rolePath: string[]): ItemVerdict | undefined {
  if (indexes.length === 0) return undefined;
  const remove: RemovePart[] = [...indexes].sort((a, b) => b - a).map((index) => ({ path: [attribute, index], guard: [attribute, index, ...rolePath] }));
  return { action: 'removeParts', kind, parts: { kind, remove } };
}

/** The fan-out's Powertools result (tenantless: its key is a hash): `data.tierChange.userId`, the account whose tier a follow changed. */
function fanOutResultParts(item: Record<string, unknown>, userId: string): ItemVerdict {
  const data = item.data;
  const tierChange = typeof data === 'object' && data !== null ? (data as { tierChange?: unknown }).tierChange : undefined;
  const named = typeof tierChange === 'object' && tierChange !== null && (tierChange as { userId?: unknown }).userId === userId;
  const path = ['data', 'tierChange', 'userId'];
  return named ? { action: 'removeParts', kind: 'fanOutResultAccount', parts: { kind: 'fanOutResultAccount', remove: [{ path, guard: path }] } } : keep('fanOutIdempotencyRecord');
}

/** What the erasure does with a pending one-time schedule, from its payload's roles. */
export type ScheduleVerdict = { action: 'delete' | 'keep'; role: string } | { action: 'unknown'; role: 'unknown' };

/**
 * A schedule's payload by kind: a quiet-hours release (`live-release`, the held user), a signed
 * delivery or channel job (snooze comeback, channel hold: recipients and the notification's actor),
 * or a `sendAt` event (actor, recipients, follower audience, followee). It goes when it belongs to the
 * user or they authored it; one naming them among other recipients stays (the fan-out drops them by
 * the tombstone when it fires). `findType` (the catalog) adds the recipients and followee a type
 * derives from its data; without it, only the envelope's roles count.
 */
export function classifySchedule(payload: string, subject: ErasureSubject, findType?: ValidateEventInput['findType']): ScheduleVerdict {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return { action: 'unknown', role: 'unknown' };
  }
  if (typeof body !== 'object' || body === null) return { action: 'unknown', role: 'unknown' };
  const record = body as Record<string, unknown>;
  const { tenantId, userId } = subject;
  if (record.kind === 'live-release') {
    if (record.tenantId !== tenantId) return { action: 'keep', role: 'otherTenant' };
    return record.userId === userId ? { action: 'delete', role: 'heldUser' } : { action: 'keep', role: 'heldUser' };
  }
  if ('target' in record) {
    const job = deliveryJobSchema.safeParse(record);
    if (!job.success) return { action: 'unknown', role: 'unknown' };
    if (job.data.tenantId !== tenantId) return { action: 'keep', role: 'otherTenant' };
    if (job.data.notification.actor.id === userId) return { action: 'delete', role: 'actor' };
    const target = job.data.target;
    if (target.kind === 'onlineFollowers') return target.actorId === userId ? { action: 'delete', role: 'actor' } : { action: 'keep', role: 'followersOf' };
    return rolesVerdict(target.recipients.map((recipient) => recipient.userId), userId);
  }
  if ('detail' in record) return sendAtVerdict(record, payload, subject, findType);
  return { action: 'unknown', role: 'unknown' };
}

function sendAtVerdict(record: Record<string, unknown>, payload: string, subject: ErasureSubject, findType: ValidateEventInput['findType'] | undefined): ScheduleVerdict {
  const detail = record.detail as { tenantId?: unknown; actor?: { id?: unknown }; recipients?: unknown; audience?: { followersOf?: unknown } } | null;
  if (typeof detail !== 'object' || detail === null || typeof detail.tenantId !== 'string') return { action: 'unknown', role: 'unknown' };
  if (detail.tenantId !== subject.tenantId) return { action: 'keep', role: 'otherTenant' };
  let actor = detail.actor?.id;
  let recipients = Array.isArray(detail.recipients) ? detail.recipients : [];
  let followersOf = detail.audience?.followersOf;
  let followee: string | undefined;
  if (findType) {
    try {
      const { event, type } = validateEventBridgeBody(payload, findType);
      ({ recipients } = event);
      actor = event.actor.id;
      followersOf = event.followersOf;
      followee = type.followeeOf?.(event.data);
    } catch {
      // An event the fan-out would refuse: judged by its envelope's roles alone.
    }
  }
  if (actor === subject.userId) return { action: 'delete', role: 'actor' };
  if (followersOf === subject.userId) return { action: 'delete', role: 'followersOf' };
  if (followee === subject.userId) return { action: 'delete', role: 'followee' };
  return rolesVerdict(recipients, subject.userId);
}

function rolesVerdict(recipients: readonly unknown[], userId: string): ScheduleVerdict {
  if (!recipients.includes(userId)) return { action: 'keep', role: 'recipient' };
  return recipients.every((recipient) => recipient === userId) ? { action: 'delete', role: 'recipient' } : { action: 'keep', role: 'recipientAmongOthers' };
}
