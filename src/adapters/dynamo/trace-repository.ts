/**
 * The delivery trace in the idempotency table: one item per (event, user or whole event, stage),
 * overwritten by a later attempt of the same stage, expiring by TTL (`expiration`). `explain` reads
 * the few possible keys of one (tenant, user, event) with one BatchGetItem.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/model/keys.js';
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

export class DynamoTraceRepository implements TraceRecorder, TraceReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly ttlSeconds = TRACE_TTL_SECONDS,
    private readonly clock: Clock = systemClock,
  ) {}

  async record(entries: readonly TraceEntry[]): Promise<void> {
    const expiration = Math.floor(this.clock.nowMs() / 1000) + this.ttlSeconds;
    // One request per key (BatchWriteItem refuses duplicate keys): the last entry of a key wins.
    const items = new Map<string, Item>();
    for (const entry of entries) {
      const id = keys.traceRecordId(entry.tenantId, entry.userId, entry.stage, entry.eventId);
      items.set(id, { id, expiration, trace: { ...entry, ...(entry.detail ? { detail: entry.detail.slice(0, MAX_DETAIL_LENGTH) } : {}) } });
    }
    await batchWriteAll(this.client, this.tableName, [...items.values()].map((item) => ({ PutRequest: { Item: item } })), TRACE_WRITE_POLICY);
  }

  async explain(tenantId: string, userId: string, eventId: string): Promise<TraceEntry[]> {
    const ids = [
      ...EVENT_STAGES.map((stage) => keys.traceRecordId(tenantId, undefined, stage, eventId)),
      ...USER_STAGES.map((stage) => keys.traceRecordId(tenantId, userId, stage, eventId)),
    ];
    // Nine keys: one BatchGetItem; an operator's read, so unprocessed keys are simply read again once.
    const items: Item[] = [];
    let pending: Item[] = ids.map((id) => ({ id }));
    for (let attempt = 0; attempt < 3 && pending.length > 0; attempt += 1) {
      const output = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending } } }));
      items.push(...(output.Responses?.[this.tableName] ?? []));
      pending = (output.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Item[];
    }
    const nowSeconds = Math.floor(this.clock.nowMs() / 1000);
    return items
      .filter((item) => typeof item.expiration !== 'number' || item.expiration > nowSeconds)
      .map((item) => item.trace as TraceEntry)
      .sort((a, b) => a.atMs - b.atMs);
  }
}
