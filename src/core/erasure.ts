/**
 * Erasing a user (GDPR Art. 17), the pure part: which partitions hold only the user's data, which
 * item of any table names them, the tombstone's id, and the report's shape. The DynamoDB executor
 * is `src/adapters/dynamo/user-eraser.ts`; the operator command `src/ops/erase.ts`.
 */
import { createHash } from 'node:crypto';
import { assertIdentifier, keys, keySegment, tenantKeyPrefix, userPartition, type TableKey } from './keys.js';
import type { TableName } from '../table-specs.js';
import { FOLLOWED_PACK_ATTRIBUTE, followedPackElementsOf } from './followed-pack.js';
import { indexEntriesOfAuthor } from './celebrity-posts-index.js';

export interface ErasureSubject {
  tenantId: string;
  userId: string;
}

/**
 * The tombstone (and progress checkpoint) of an erasure, in the Idempotency table. Keyed by a hash,
 * so the record that outlives the erasure does not name the user; only someone who knows the id can
 * find it (the fan-out does, to drop events for the user still in flight).
 */
export function erasureRecordId(subject: ErasureSubject): string {
  assertIdentifier('userId', subject.userId);
  const digest = createHash('sha256').update(`${subject.tenantId}\u0000${subject.userId}`, 'utf8').digest('base64url');
  return keys.erasureRecordId(subject.tenantId, digest);
}

/** A partition (pk) of one table that belongs to the user alone: deleted whole, Query + BatchWriteItem. */
export interface UserPartition {
  table: Exclude<TableName, 'idempotency'>;
  pk: string;
  kind: string;
}

/** Every partition that belongs to the user alone (the feed shards up to `feedShards`; a scan catches any beyond). */
export function userPartitions(subject: ErasureSubject, feedShards: number): UserPartition[] {
  const { tenantId, userId } = subject;
  const own = userPartition(tenantId, userId);
  return [
    { table: 'connections', pk: own, kind: 'connection' },
    { table: 'inbox', pk: own, kind: 'inboxItem' },
    { table: 'readMarks', pk: own, kind: 'readState' },
    ...Array.from({ length: feedShards }, (_, shard): UserPartition => ({ table: 'inbox', pk: keys.feedShardPartition(tenantId, userId, shard), kind: 'feedItem' })),
    { table: 'inbox', pk: keys.postsLogPartition(tenantId, userId), kind: 'postsLogEntry' },
    // Their followers: the edges go with the account (its count goes with its PROFILE).
    { table: 'graph', pk: keys.followersPartition(tenantId, userId), kind: 'followerEdge' },
    { table: 'graph', pk: keys.followingCelebsPartition(tenantId, userId), kind: 'followedCelebrity' },
    { table: 'graph', pk: keys.followedCelebsPackPartition(tenantId, userId), kind: 'followedCelebritiesPack' },
    { table: 'graph', pk: keys.profile(tenantId, userId).pk, kind: 'profileOrPreferences' },
  ];
}

const KEY_SEPARATOR = '#';
/** Key tokens that precede a user-like id segment: `U#<user>`, `F#<actor>`, `P#<author>`. */
const USER_SEGMENT_MARKERS = new Set(['U', 'F', 'P']);

/** The key names of the tables (pk/sk, or the Idempotency table's `id`). */
const KEY_ATTRIBUTES = new Set(['pk', 'sk', 'id']);

/** True when `key` is a tenant-led key of `subject`'s tenant with a `U#`/`F#`/`P#` segment of the user. */
function keyNamesUser(key: string, tenantPrefix: string, userSegment: string): boolean {
  if (!key.startsWith(`${tenantPrefix}${KEY_SEPARATOR}`)) return false;
  const tokens = key.slice(tenantPrefix.length + 1).split(KEY_SEPARATOR);
  return tokens.some((token, index) => index > 0 && token === userSegment && USER_SEGMENT_MARKERS.has(tokens[index - 1]!));
}

function valueNamesUser(value: unknown, userId: string, quotedUserId: string, depth: number): boolean {
  if (depth > 16) return false;
  if (typeof value === 'string') return value === userId || (value.length > quotedUserId.length && value.includes(quotedUserId));
  if (Array.isArray(value)) return value.some((element) => valueNamesUser(element, userId, quotedUserId, depth + 1));
  if (value instanceof Set) return [...(value as Set<unknown>)].some((element) => valueNamesUser(element, userId, quotedUserId, depth + 1));
  if (value && typeof value === 'object') return Object.values(value).some((element) => valueNamesUser(element, userId, quotedUserId, depth + 1));
  return false;
}

/** The tenant an item belongs to: its tenant-led key, or its `tenantId` attribute (connection reverse items); undefined for tenantless records. */
function tenantPrefixOf(item: Record<string, unknown>): string | undefined {
  for (const name of ['pk', 'id']) {
    const key = item[name];
    if (typeof key === 'string' && key.startsWith('T#')) return `T#${key.split(KEY_SEPARATOR)[1] ?? ''}`;
  }
  return typeof item.tenantId === 'string' ? tenantKeyPrefix(item.tenantId) : undefined;
}

/**
 * Whether a stored item names the user: a key with their `U#`/`F#`/`P#` segment in their tenant, or
 * (in their tenant, or in a tenantless record such as a Powertools idempotency record) any
 * attribute whose string value is their id, or JSON text holding it as a string ("actor":{"id":...}).
 * The erasure tombstone is keyed by a hash, so it never matches.
 */
export function itemNamesUser(item: Record<string, unknown>, subject: ErasureSubject): boolean {
  const tenantPrefix = tenantKeyPrefix(subject.tenantId);
  const userSegment = keySegment('userId', subject.userId);
  const itemTenant = tenantPrefixOf(item);
  if (itemTenant !== undefined && itemTenant !== tenantPrefix) return false;
  for (const name of KEY_ATTRIBUTES) {
    const key = item[name];
    if (typeof key === 'string' && keyNamesUser(key, tenantPrefix, userSegment)) return true;
  }
  // A trace's detail is operator text ("written to 4 feed shards of alice").
  if (typeof item.id === 'string' && item.id.includes('#TRACE#') && textNamesUser(JSON.stringify(item), subject.userId)) return true;
  return valueNamesUser(item, subject.userId, JSON.stringify(subject.userId), 0);
}

const ID_CHARACTER = /[A-Za-z0-9._@:+=|-]/;

/** Text naming the id as a whole word (not inside a longer id). */
function textNamesUser(text: string, userId: string): boolean {
  for (let at = text.indexOf(userId); at >= 0; at = text.indexOf(userId, at + 1)) {
    const before = at > 0 ? text[at - 1]! : ' ';
    const after = at + userId.length < text.length ? text[at + userId.length]! : ' ';
    if (!ID_CHARACTER.test(before) && !ID_CHARACTER.test(after)) return true;
  }
  return false;
}

/**
 * A Graph item `followersPartition(followee)` / sk = the user is an edge the user follows: deleting
 * it must lower the followee's count. Answers the followee's PROFILE key (next to the edge's partition).
 */
export function followeeProfileOfOutgoingEdge(item: Record<string, unknown>, subject: ErasureSubject): TableKey | undefined {
  const pk = item.pk;
  if (typeof pk !== 'string' || item.sk !== subject.userId) return undefined;
  if (pk === keys.followersPartition(subject.tenantId, subject.userId)) return undefined;
  return keys.profileOfFollowersPartition(pk);
}

/**
 * A chunk of ANOTHER user's followed-celebrities pack (Graph, src/core/followed-pack.ts) names the
 * user by elements of its String Set `f` (`${followedAtMs}:${userId}`), not by a key or a value:
 * answers those elements (the eraser DELETEs them, the chunk and the other elements stay). Undefined
 * for any other item; the user's own pack goes with their partitions.
 */
export function followedPackElementsNamingUser(item: Record<string, unknown>, subject: ErasureSubject): string[] | undefined {
  const pk = item.pk;
  if (typeof pk !== 'string' || !keys.isFollowedCelebsPackPartition(pk) || !pk.startsWith(`${tenantKeyPrefix(subject.tenantId)}#`)) return undefined;
  if (pk === keys.followedCelebsPackPartition(subject.tenantId, subject.userId)) return undefined;
  const elements = followedPackElementsOf(item, subject.userId);
  return elements.length > 0 ? elements : undefined;
}

/** The attribute `@<userId>` of the unreleased one-attribute-per-celebrity pack (dev data dirs): erased too, though no read uses it. */
function legacyPackAttributesNamingUser(item: Record<string, unknown>, subject: ErasureSubject): string[] {
  const attribute = `@${subject.userId}`;
  const sameTenant = typeof item.pk === 'string' && item.pk.startsWith(`${tenantKeyPrefix(subject.tenantId)}#`);
  return sameTenant && Object.hasOwn(item, attribute) ? [attribute] : [];
}

/** A chunk of another user's followed-celebrities pack: never deleted whole by a scan (its elements name many users, its sk `C#<n>` may equal an id). */
export function isOthersFollowedPack(item: Record<string, unknown>, subject: ErasureSubject): boolean {
  const pk = item.pk;
  return typeof pk === 'string' && keys.isFollowedCelebsPackPartition(pk) && pk !== keys.followedCelebsPackPartition(subject.tenantId, subject.userId);
}

/** What one erasure removed, by table and kind; `followCountsLowered` = followees whose count went down by one. */
export interface ErasureReport {
  removed: Record<string, number>;
  connectionsClosed: number;
  followCountsLowered: number;
  schedulesDeleted: number;
  /** Steps (bounded invocations) the erasure took, this run. */
  steps: number;
}

export function emptyErasureReport(): ErasureReport {
  return { removed: {}, connectionsClosed: 0, followCountsLowered: 0, schedulesDeleted: 0, steps: 0 };
}

export function countRemoved(report: ErasureReport, table: TableName, kind: string, count: number): void {
  if (count <= 0) return;
  const key = `${table}.${kind}`;
  report.removed[key] = (report.removed[key] ?? 0) + count;
}

export function totalRemoved(report: ErasureReport): number {
  return Object.values(report.removed).reduce((sum, count) => sum + count, 0);
}

/** Elements to DELETE from one String Set attribute of a shared item. */
export interface SetElementsNamingUser {
  attribute: string;
  elements: string[];
}

/** What the eraser takes out of a shared item: attributes to REMOVE, set elements to DELETE; the report's kind. */
export interface SharedItemPartsNamingUser {
  attributes: string[];
  setElements?: SetElementsNamingUser[];
  kind: string;
}

/** How many attributes and set elements a shared item loses (what the report counts). */
export function sharedItemPartCount(parts: SharedItemPartsNamingUser): number {
  return parts.attributes.length + (parts.setElements ?? []).reduce((sum, set) => sum + set.elements.length, 0);
}

/**
 * Items many users share that name the user only by some parts: another user's followed-
 * celebrities pack chunk (elements of its String Set `f`, DELETEd), a celebrity posts count index
 * slot (attributes of the posts the user authored, REMOVEd). Answers those parts (maybe none) and the
 * report's kind; the item stays. Undefined for any other item (deleted whole when it names the user).
 */
export function sharedItemAttributesNamingUser(table: TableName, item: Record<string, unknown>, subject: ErasureSubject): SharedItemPartsNamingUser | undefined {
  const pk = item.pk;
  if (typeof pk !== 'string') return undefined;
  if (table === 'graph' && isOthersFollowedPack(item, subject)) {
    const elements = followedPackElementsNamingUser(item, subject);
    return { attributes: legacyPackAttributesNamingUser(item, subject), ...(elements ? { setElements: [{ attribute: FOLLOWED_PACK_ATTRIBUTE, elements }] } : {}), kind: 'followedCelebritiesPackEntry' };
  }
  if (table === 'inbox' && keys.isCelebrityPostsIndexPartition(pk)) {
    const sameTenant = pk.startsWith(`${tenantKeyPrefix(subject.tenantId)}#`);
    return { attributes: sameTenant ? indexEntriesOfAuthor(item, subject.userId) : [], kind: 'celebrityPostIndexEntry' };
  }
  return undefined;
}

/** Parts of a shared item one UpdateItem takes out at most (a short expression). */
const SHARED_PARTS_PER_UPDATE = 100;

/** One UpdateItem of a shared item: `REMOVE` of attributes, `DELETE` of set elements (names and values as placeholders). */
export interface SharedPartsUpdate {
  expression: string;
  names: Record<string, string>;
  values?: Record<string, Set<string>>;
}

/** The updates that take the parts out of a shared item, at most SHARED_PARTS_PER_UPDATE parts each. */
export function sharedPartsUpdates(parts: SharedItemPartsNamingUser): SharedPartsUpdate[] {
  const all = [
    ...parts.attributes.map((attribute) => ({ attribute, element: undefined })),
    ...(parts.setElements ?? []).flatMap(({ attribute, elements }) => elements.map((element) => ({ attribute, element }))),
  ];
  const updates: SharedPartsUpdate[] = [];
  for (let start = 0; start < all.length; start += SHARED_PARTS_PER_UPDATE) {
    const removes = new Set<string>();
    const deletes = new Map<string, Set<string>>();
    for (const { attribute, element } of all.slice(start, start + SHARED_PARTS_PER_UPDATE)) {
      if (element === undefined) removes.add(attribute);
      else deletes.set(attribute, (deletes.get(attribute) ?? new Set()).add(element));
    }
    const names: Record<string, string> = {};
    const removeTokens = [...removes].map((attribute, index) => ((names[`#r${index}`] = attribute), `#r${index}`));
    const deleteClauses = [...deletes.keys()].map((attribute, index) => ((names[`#d${index}`] = attribute), `#d${index} :d${index}`));
    const values = Object.fromEntries([...deletes.values()].map((elements, index) => [`:d${index}`, elements]));
    const clauses = [...(removeTokens.length > 0 ? [`REMOVE ${removeTokens.join(', ')}`] : []), ...(deleteClauses.length > 0 ? [`DELETE ${deleteClauses.join(', ')}`] : [])];
    updates.push({ expression: clauses.join(' '), names, ...(deletes.size > 0 ? { values } : {}) });
  }
  return updates;
}

/** The kind of an item found by a scan, for the report. */
export function scannedItemKind(table: TableName, item: Record<string, unknown>): string {
  const key = String(item.pk ?? item.id ?? '');
  if (table === 'idempotency') {
    for (const kind of ['HOLD', 'RATE', 'TRACE', 'ARRIVAL']) if (key.includes(`#${kind}#`)) return kind.toLowerCase();
    return 'record';
  }
  if (key.startsWith('CONN#')) return 'connectionReverse';
  if (key.includes('#ONLINE#')) return 'onlineSubscription';
  if (key.endsWith('#FOLLOWERS')) return 'followingEdge';
  if (keys.isFollowingCelebsPartition(key)) return 'followerOfCelebrity';
  if (keys.isFollowedCelebsPackPartition(key)) return 'followedCelebritiesPack';
  return table === 'inbox' ? 'itemNamingUser' : 'item';
}
