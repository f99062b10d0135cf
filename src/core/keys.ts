/**
 * Every DynamoDB key of the system is built here, and only here.
 *
 * Partition keys start with the tenant as a literal leading segment (`T#<tenant>#...`) so an IAM
 * `dynamodb:LeadingKeys` condition can clamp a role to one tenant.
 */
import { InvalidIdentifierError } from './errors.js';

/** Tenant ids, user ids and actor ids: no `#` (our key separator), bounded length. */
export const IDENTIFIER_PATTERN = /^[A-Za-z0-9._@:+=-]{1,128}$/;

export function assertIdentifier(kind: string, value: string): string {
  if (!IDENTIFIER_PATTERN.test(value)) throw new InvalidIdentifierError(kind, value);
  return value;
}

export interface TableKey {
  pk: string;
  sk: string;
}

const tenantPrefix = (tenantId: string) => `T#${assertIdentifier('tenantId', tenantId)}`;

/** `T#<tenant>#U#<user>`: the user's partition in Inbox, ReadMarks and Connections. */
export function userPartition(tenantId: string, userId: string): string {
  return `${tenantPrefix(tenantId)}#U#${assertIdentifier('userId', userId)}`;
}

/** Sort key of the item that holds both high-water marks (read and seen). */
// Named so it sorts after every `READ#<ulid>` ('M' > '#'): one descending query from the top
// returns the marks first, then the newest single-read exceptions.
export const READ_MARK_SK = 'READMARK';
const READ_EXCEPTION_PREFIX = 'READ#';

export const keys = {
  inboxItem: (tenantId: string, userId: string, notificationId: string): TableKey => ({
    pk: userPartition(tenantId, userId),
    sk: notificationId,
  }),

  /** A celebrity's feed shard: `T#<tenant>#F#<actor>#S<n>`. Every feed event is written to each shard. */
  feedShardPartition: (tenantId: string, actorId: string, shard: number): string =>
    `${tenantPrefix(tenantId)}#F#${assertIdentifier('actorId', actorId)}#S${shard}`,

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

  /** Graph: one item per follower of `userId` (sk = follower id). */
  followersPartition: (tenantId: string, userId: string): string =>
    `${userPartition(tenantId, userId)}#FOLLOWERS`,
  follower: (tenantId: string, followeeId: string, followerId: string): TableKey => ({
    pk: keys.followersPartition(tenantId, followeeId),
    sk: assertIdentifier('followerId', followerId),
  }),

  /** Graph: one item per celebrity that `userId` follows (sk = celebrity id, holds followedAt). */
  followingCelebsPartition: (tenantId: string, userId: string): string =>
    `${userPartition(tenantId, userId)}#FOLLOWING_CELEBS`,
  followingCeleb: (tenantId: string, userId: string, celebrityId: string): TableKey => ({
    pk: keys.followingCelebsPartition(tenantId, userId),
    sk: assertIdentifier('celebrityId', celebrityId),
  }),

  /** Graph: follower count and tier of an account. */
  profile: (tenantId: string, userId: string): TableKey => ({
    pk: `${userPartition(tenantId, userId)}#PROFILE`,
    sk: 'PROFILE',
  }),
};
