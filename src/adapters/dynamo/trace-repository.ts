/**
 * The delivery trace: one item per (event, user or whole event, stage), overwritten by a later
 * attempt of the same stage, expiring by TTL. A user's records live in their own trace partition of
 * the Inbox table (`T#t#U#u#TRACE` / `<stage>#<event id>`, `expiresAt`), so the erasure deletes them
 * with one Query; the event-wide records stay in the Idempotency table (`expiration`), and one about
 * an account (a celebrity's feed post) carries the owner index attribute so that account's erasure
 * finds it. `explain` reads the few possible keys of one (tenant, user, event) with one BatchGetItem
 * over both tables (and a user's records of the Idempotency table written before they moved).
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AUTHOR_INDEX, keys, OWNER_INDEX, ownerIndexValue } from '../../core/model/keys.js';
import type { TraceEntry, TraceReader, TraceRecorder, TraceStage } from '../../core/ports/trace.js';
import { systemClock, type Clock } from '../../core/ports/clock.js';
import { batchWriteAll, type Item } from './batch.js';

/** A week: long enough to answer a support ticket, short enough to stay cheap. */
export const TRACE_TTL_SECONDS = 7 * 86_400;

const USER_STAGES: readonly TraceStage[] = ['fanout', 'gate', 'delivery', 'release', 'push', 'email'];
const EVENT_STAGES: readonly TraceStage[] = ['intake', 'fanout', 'dlq'];
const MAX_DETAIL_LENGTH = 300;

/** Tracing is best effort: a short retry budget keeps a throttled table off the delivery path. */
const TRACE_WRITE_POLICY = { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 100 } as const;

export interface TraceTables {
  /** Event-wide records (and a user's records written before they moved to the Inbox table). */
  idempotencyTable: string;
  /** A user's records, in their trace partition. */
  inboxTable: string;
}

export class DynamoTraceRepository implements TraceRecorder, TraceReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: TraceTables,
    private readonly ttlSeconds = TRACE_TTL_SECONDS,
    private readonly clock: Clock = systemClock,
  ) {}

  async record(entries: readonly TraceEntry[]): Promise<void> {
    const expiry = Math.floor(this.clock.nowMs() / 1000) + this.ttlSeconds;
    // One request per key (BatchWriteItem refuses duplicate keys): the last entry of a key wins.
    const userItems = new Map<string, Item>();
    const eventItems = new Map<string, Item>();
    for (const entry of entries) {
      const trace = { ...entry, ...(entry.detail ? { detail: entry.detail.slice(0, MAX_DETAIL_LENGTH) } : {}) };
      if (entry.userId !== undefined) {
        const key = keys.userTrace(entry.tenantId, entry.userId, entry.stage, entry.eventId);
        // A follow's record names its followee by role: in the author index under them, so their erasure finds it.
        userItems.set(`${key.pk}\u0000${key.sk}`, { ...key, expiresAt: expiry, trace, ...(entry.followeeId !== undefined ? { [AUTHOR_INDEX.attribute]: ownerIndexValue(entry.tenantId, entry.followeeId) } : {}) });
        continue;
      }
      const id = keys.traceRecordId(entry.tenantId, undefined, entry.stage, entry.eventId);
      eventItems.set(id, { id, expiration: expiry, trace, ...(entry.actorId !== undefined ? { [OWNER_INDEX.attribute]: ownerIndexValue(entry.tenantId, entry.actorId) } : {}) });
    }
    const put = (items: Map<string, Item>) => [...items.values()].map((item) => ({ PutRequest: { Item: item } }));
    await Promise.all([
      userItems.size > 0 ? batchWriteAll(this.client, this.tables.inboxTable, put(userItems), TRACE_WRITE_POLICY) : undefined,
      eventItems.size > 0 ? batchWriteAll(this.client, this.tables.idempotencyTable, put(eventItems), TRACE_WRITE_POLICY) : undefined,
    ]);
  }

  async explain(tenantId: string, userId: string, eventId: string): Promise<TraceEntry[]> {
    const { idempotencyTable, inboxTable } = this.tables;
    // One BatchGetItem per table, so a table that cannot be read (an outage being explained) hides only its own records.
    const [events, users] = await Promise.all([
      this.readKeys(idempotencyTable, [...EVENT_STAGES.map((stage) => ({ id: keys.traceRecordId(tenantId, undefined, stage, eventId) })), ...USER_STAGES.map((stage) => ({ id: keys.traceRecordId(tenantId, userId, stage, eventId) }))]),
      this.readKeys(inboxTable, USER_STAGES.map((stage) => ({ ...keys.userTrace(tenantId, userId, stage, eventId) }))),
    ]);
    const items = [...events, ...users];
    const nowSeconds = Math.floor(this.clock.nowMs() / 1000);
    return items
      .filter((item) => {
        const expiry = item.expiresAt ?? item.expiration;
        return typeof expiry !== 'number' || expiry > nowSeconds;
      })
      .map((item) => item.trace as TraceEntry)
      .sort((a, b) => a.atMs - b.atMs);
  }

  /** The items at `keys` of one table (an operator's read: unprocessed keys read again twice); a table that does not exist answers none. */
  private async readKeys(table: string, keysToRead: Item[]): Promise<Item[]> {
    const items: Item[] = [];
    let pending = keysToRead;
    try {
      for (let attempt = 0; attempt < 3 && pending.length > 0; attempt += 1) {
        const output = await this.client.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } } }));
        items.push(...(output.Responses?.[table] ?? []));
        pending = (output.UnprocessedKeys?.[table]?.Keys ?? []) as Item[];
      }
    } catch (error) {
      if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
    }
    return items;
  }
}
