/**
 * Erasing a user (GDPR Art. 17), the pure part: which partitions hold only the user's data, the
 * tombstone's id, the report's shape and the updates that take a user's parts out of a shared item.
 * Which item names the user, and in which role, is `src/core/privacy/erasure-roles.ts`; the DynamoDB
 * executor is `src/adapters/dynamo/user-eraser.ts`; the operator command `src/ops/erase.ts`.
 */
import { createHash } from 'node:crypto';
import { assertIdentifier, keys, userPartition } from '../model/keys.js';
import type { TableName } from '../../table-specs.js';

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

/**
 * Another run of the same erasure saved its checkpoint since this one read it (a duplicate job
 * message): this run stops, the other goes on. Its deletes are not lost (they are idempotent).
 */
export class ErasureConflictError extends Error {
  override readonly name = 'ErasureConflictError';
}

/** A partition (pk) of one table that belongs to the user alone: deleted whole, Query + BatchWriteItem. */
export interface UserPartition {
  table: Exclude<TableName, 'idempotency'>;
  pk: string;
  kind: string;
}

/**
 * Every partition that belongs to the user alone, deleted whole after the cross-references they lead
 * to are gone (the feed shards up to the deployment's `feedShards`, their followers' online
 * subscriptions in each of `onlineSubscriberShards`). Their channel records go first, on their own.
 */
export function userPartitions(subject: ErasureSubject, feedShards: number, onlineSubscriberShards = 0): UserPartition[] {
  const { tenantId, userId } = subject;
  const own = userPartition(tenantId, userId);
  return [
    { table: 'connections', pk: own, kind: 'connection' },
    ...Array.from({ length: onlineSubscriberShards }, (_, shard): UserPartition => ({ table: 'connections', pk: keys.onlineSubscribersPartition(tenantId, userId, shard), kind: 'onlineSubscriber' })),
    { table: 'inbox', pk: own, kind: 'inboxItem' },
    { table: 'readMarks', pk: own, kind: 'readState' },
    ...Array.from({ length: feedShards }, (_, shard): UserPartition => ({ table: 'inbox', pk: keys.feedShardPartition(tenantId, userId, shard), kind: 'feedItem' })),
    { table: 'inbox', pk: keys.recentPostsPartition(tenantId, userId), kind: 'postsLogEntry' },
    { table: 'inbox', pk: keys.userTracePartition(tenantId, userId), kind: 'userTrace' },
    // Their followers: the edges go with the account (its count goes with its PROFILE).
    { table: 'graph', pk: keys.followersPartition(tenantId, userId), kind: 'followerEdge' },
    { table: 'graph', pk: keys.formerFollowersPartition(tenantId, userId), kind: 'formerFollower' },
    { table: 'graph', pk: keys.followingPartition(tenantId, userId), kind: 'followingEntry' },
    // Post alerts: the account's subscribers (the account is gone), and their own references to their subscriptions.
    { table: 'graph', pk: keys.alertSubscribersPartition(tenantId, userId), kind: 'alertSubscriber' },
    { table: 'graph', pk: keys.alertingPartition(tenantId, userId), kind: 'alertingEntry' },
    { table: 'graph', pk: keys.followingCelebsPartition(tenantId, userId), kind: 'followedCelebrity' },
    { table: 'graph', pk: keys.followedCelebsPackPartition(tenantId, userId), kind: 'followedCelebritiesPack' },
    { table: 'graph', pk: keys.profile(tenantId, userId).pk, kind: 'profileOrPreferences' },
    // Again at the end: a device registered while the erasure ran (the first phase deleted the rest).
    { table: 'graph', pk: keys.channelStatePartition(tenantId, userId), kind: 'channelState' },
  ];
}

/** What one erasure removed, by table and kind; `followCountsLowered` = followees whose count went down by one. */
export interface ErasureReport {
  removed: Record<string, number>;
  /** SNS platform endpoints of their devices deleted. */
  pushEndpointsDeleted?: number;
  /** Export documents of theirs deleted from the export store. */
  exportsDeleted?: number;
  /** Items kept because their key is of no kind keys.ts builds, by table (never deleted on a guess; each logged at WARN). */
  unknownKept?: Record<string, number>;
  connectionsClosed: number;
  followCountsLowered: number;
  schedulesDeleted: number;
  /** Pending schedules kept though they name the user: a recipient among others (the fan-out drops them by the tombstone when it fires). */
  schedulesKeptNamingUser?: number;
  /** Pending schedules whose payload is of no known kind: kept, logged at WARN. */
  schedulesUnknown?: number;
  /** Steps (bounded invocations) the erasure took, this run. */
  steps: number;
}

export function emptyErasureReport(): ErasureReport {
  return { removed: {}, unknownKept: {}, pushEndpointsDeleted: 0, exportsDeleted: 0, connectionsClosed: 0, followCountsLowered: 0, schedulesDeleted: 0, schedulesKeptNamingUser: 0, schedulesUnknown: 0, steps: 0 };
}

export function countRemoved(report: ErasureReport, table: TableName, kind: string, count: number): void {
  if (count <= 0) return;
  const key = `${table}.${kind}`;
  report.removed[key] = (report.removed[key] ?? 0) + count;
}

export function countUnknownKept(report: ErasureReport, table: TableName): void {
  report.unknownKept = { ...report.unknownKept, [table]: (report.unknownKept?.[table] ?? 0) + 1 };
}

export function totalRemoved(report: ErasureReport): number {
  return Object.values(report.removed).reduce((sum, count) => sum + count, 0);
}

/** Elements to DELETE from one String Set attribute of a shared item. */
export interface SetElementsNamingUser {
  attribute: string;
  elements: string[];
}

/** A path into an item: attribute names (into maps) and list indexes. */
export type AttributePath = readonly (string | number)[];

/** A part to REMOVE; with `guard`, only while the value there is still the user's id (a list element may have moved). */
export interface RemovePart {
  path: AttributePath;
  guard?: AttributePath;
}

/** What the eraser takes out of a shared item (src/core/privacy/erasure-roles.ts): paths to REMOVE, set elements to DELETE; the report's kind. */
export interface SharedItemPartsNamingUser {
  kind: string;
  remove: RemovePart[];
  setElements?: SetElementsNamingUser[];
}

/** How many parts a shared item loses (what the report counts). */
export function sharedItemPartCount(parts: SharedItemPartsNamingUser): number {
  return parts.remove.length + (parts.setElements ?? []).reduce((sum, set) => sum + set.elements.length, 0);
}

/** Parts of a shared item one UpdateItem takes out at most (a short expression). */
const SHARED_PARTS_PER_UPDATE = 100;

/**
 * One UpdateItem of a shared item: `REMOVE` of paths, `DELETE` of set elements, names and values as
 * placeholders; `condition` holds the guards (`:user` = the user's id), undefined when none.
 */
export interface SharedPartsUpdate {
  expression: string;
  condition?: string;
  names: Record<string, string>;
  values?: Record<string, Set<string> | string>;
}

/**
 * The updates that take the parts out of a shared item, at most SHARED_PARTS_PER_UPDATE parts each,
 * in the order given (list elements come highest index first, so an earlier update never moves a
 * later one's elements).
 */
export function sharedPartsUpdates(parts: SharedItemPartsNamingUser, userId: string): SharedPartsUpdate[] {
  const all = [
    ...parts.remove.map((part) => ({ part, element: undefined })),
    ...(parts.setElements ?? []).flatMap(({ attribute, elements }) => elements.map((element) => ({ part: { path: [attribute] } as RemovePart, element }))),
  ];
  const updates: SharedPartsUpdate[] = [];
  for (let start = 0; start < all.length; start += SHARED_PARTS_PER_UPDATE) {
    const names: Record<string, string> = {};
    const placeholders = new Map<string, string>();
    const pathExpression = (path: AttributePath) =>
      path
        .map((step, index) => {
          if (typeof step === 'number') return `[${step}]`;
          let placeholder = placeholders.get(step);
          if (placeholder === undefined) {
            placeholder = `#n${placeholders.size}`;
            placeholders.set(step, placeholder);
            names[placeholder] = step;
          }
          return index === 0 ? placeholder : `.${placeholder}`;
        })
        .join('');
    const removes: string[] = [];
    const guards: string[] = [];
    const deletes = new Map<string, Set<string>>();
    for (const { part, element } of all.slice(start, start + SHARED_PARTS_PER_UPDATE)) {
      if (element !== undefined) {
        const attribute = pathExpression(part.path);
        deletes.set(attribute, (deletes.get(attribute) ?? new Set()).add(element));
        continue;
      }
      removes.push(pathExpression(part.path));
      if (part.guard) guards.push(`${pathExpression(part.guard)} = :user`);
    }
    const values: Record<string, Set<string> | string> = {};
    const deleteClauses = [...deletes].map(([attribute, elements], index) => ((values[`:d${index}`] = elements), `${attribute} :d${index}`));
    if (guards.length > 0) values[':user'] = userId;
    const clauses = [...(removes.length > 0 ? [`REMOVE ${removes.join(', ')}`] : []), ...(deleteClauses.length > 0 ? [`DELETE ${deleteClauses.join(', ')}`] : [])];
    updates.push({ expression: clauses.join(' '), ...(guards.length > 0 ? { condition: guards.join(' AND ') } : {}), names, ...(Object.keys(values).length > 0 ? { values } : {}) });
  }
  return updates;
}
