/**
 * The tables, declared once. `lib/` (CDK) and `src/local/` (dynalite table creation) both derive
 * their definitions from here, so infrastructure and code cannot drift.
 */
import { ENV } from './env.js';
import { AUTHOR_INDEX, OWNER_INDEX } from './core/model/keys.js';

export interface AttributeSpec {
  name: string;
  type: 'S' | 'N';
}

/** A sparse global secondary index: only items holding its partition key attribute are in it (keys only). */
export interface IndexSpec {
  name: string;
  partitionKey: AttributeSpec;
  sortKey: AttributeSpec;
  projection: 'KEYS_ONLY';
}

export interface TableSpec {
  /** Construct id in CDK and table name prefix locally. */
  id: string;
  /** The environment variable a function reads the table name from. */
  envVar: string;
  partitionKey: AttributeSpec;
  sortKey?: AttributeSpec;
  /** Attribute holding an epoch-seconds expiry; DynamoDB deletes lazily, reads filter too. */
  timeToLiveAttribute?: string;
  indexes?: readonly IndexSpec[];
  description: string;
}

export const tableSpecs = {
  inbox: {
    id: 'Inbox',
    envVar: ENV.INBOX_TABLE,
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    timeToLiveAttribute: 'expiresAt',
    // Notifications in other users' inboxes by author, for the author's erasure (sparse: items the author's recent posts log cannot find).
    indexes: [{ name: AUTHOR_INDEX.name, partitionKey: { name: AUTHOR_INDEX.attribute, type: 'S' }, sortKey: { name: 'sk', type: 'S' }, projection: 'KEYS_ONLY' }],
    description: 'Per-user inboxes (T#t#U#user / ULID) and sharded celebrity feeds (T#t#F#actor#S<n> / ULID). Write-once.',
  },
  readMarks: {
    id: 'ReadMarks',
    envVar: ENV.READ_MARKS_TABLE,
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    timeToLiveAttribute: 'expiresAt',
    description: 'Read/seen high-water marks (READMARK) and single-read exceptions (READ#<ulid>).',
  },
  connections: {
    id: 'Connections',
    envVar: ENV.CONNECTIONS_TABLE,
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    timeToLiveAttribute: 'expiresAt',
    description: 'Live WebSocket connections per user, reverse items for $disconnect, presence and celebrity subscriptions.',
  },
  graph: {
    id: 'Graph',
    envVar: ENV.GRAPH_TABLE,
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    // Only unfollow markers carry it (a pair's history after its last unfollow, kept until no older record can arrive).
    timeToLiveAttribute: 'expiresAt',
    description: 'Followers with their follow histories (an unfollowed pair kept as a marker, TTL), followed celebrities (with followedAt), follower counts and tier, preferences.',
  },
  idempotency: {
    id: 'Idempotency',
    envVar: ENV.IDEMPOTENCY_TABLE,
    // Powertools idempotency's default key and expiry attribute names.
    partitionKey: { name: 'id', type: 'S' },
    timeToLiveAttribute: 'expiration',
    // The records of one user (rate windows, holds, channel sends, schedule refs), for their erasure (sparse).
    indexes: [{ name: OWNER_INDEX.name, partitionKey: { name: OWNER_INDEX.attribute, type: 'S' }, sortKey: { name: 'id', type: 'S' }, projection: 'KEYS_ONLY' }],
    description: 'Event-level idempotency records and (notification, connection) delivery dedup, with TTL.',
  },
} as const satisfies Record<string, TableSpec>;

export type TableName = keyof typeof tableSpecs;

export const TABLE_NAMES = Object.keys(tableSpecs) as TableName[];
