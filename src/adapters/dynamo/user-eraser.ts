/**
 * Erases one user from every table, in bounded steps with a checkpoint, so a user with a million
 * follow edges spans several invocations and a crash resumes where the last batch ended:
 *
 * 1. tombstone: the erasure record (Idempotency table, hashed id, TTL) is written first; the fan-out
 *    reads it and drops the user from any event that reaches it from now on;
 * 2. grace: nothing is deleted until `graceMs` after the tombstone, so a fan-out that read "not
 *    erased" just before it has finished writing (set it to at least the fan-out function timeout);
 * 3. connections: each open connection is closed (API Gateway DeleteConnection) and its reverse item deleted;
 * 4. the user's own partitions, whole (Query keys + BatchWriteItem deletes): inbox, read marks and
 *    every other item kind of that partition, connections and presence, feed shards, recent posts log,
 *    followers, followed celebrities (edges and pack), profile and preferences;
 * 5. one Scan per table, each item decided by its key kind and role attributes
 *    (`classifyStoredItem`, src/core/privacy/erasure-roles.ts), never by matching values: their follow edges
 *    in other users' FOLLOWERS partitions (whose counts go down by one), notifications they
 *    authored in other inboxes (with those recipients' read state of them), online subscriptions,
 *    holds, rate windows, traces; their parts of shared items (followers' pack chunks, count index
 *    slots, connections' followed-celebrity lists, other users' held pushes) are taken out, the item
 *    stays; an item of unknown kind is kept, counted and logged at WARN;
 * 6. pending schedules that belong to the user or that they authored (`classifySchedule`).
 *
 * Every step is idempotent (deletes; a count is lowered only by the delete that removed a counted
 * edge), and the checkpoint is written after each batch, so running it twice or after a kill ends
 * the same.
 */
import { GetCommand, PutCommand, QueryCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  countRemoved,
  countUnknownKept,
  emptyErasureReport,
  erasureRecordId,
  userPartitions,
  type ErasureReport,
  type ErasureSubject,
  type SharedItemPartsNamingUser,
  type UserPartition,
} from '../../core/privacy/erasure.js';
import { classifySchedule, classifyStoredItem, type ItemVerdict } from '../../core/privacy/erasure-roles.js';
import type { ValidateEventInput } from '../../core/fanout/events.js';
import { forEachBounded } from '../../core/model/bounded-parallel.js';
import { keys, userPartition } from '../../core/model/keys.js';
import type { OneTimeSchedule } from '../../core/ports/scheduler.js';
import { tableSpecs, TABLE_NAMES, type TableName } from '../../table-specs.js';
import type { BatchOptions, Item } from './batch.js';
import { deleteKeys, erasureScanInput, removeOutgoingEdge, removeSharedParts, type ErasureWrites } from './erasure-writes.js';

/** Pending one-time schedules that can be listed and deleted (EventBridge Scheduler, the local scheduler). */
export interface ScheduleStore {
  list(): Promise<OneTimeSchedule[]> | OneTimeSchedule[];
  /** True when it existed. */
  delete(name: string): Promise<boolean> | boolean;
}

export interface UserEraserOptions {
  client: DynamoDBDocumentClient;
  tables: Record<TableName, string>;
  feedShards: number;
  /** Wait between the tombstone and the first delete (>= the fan-out function timeout on AWS). */
  graceMs: number;
  /** How long the tombstone outlives the erasure (in-flight and retried events, scheduled sends). */
  tombstoneTtlSeconds: number;
  /** Work units per step: one per deleted item, SCAN_PAGE_UNITS per scanned page. */
  stepBudget?: number;
  /** Closes a live connection (API Gateway DeleteConnection); gone connections are not an error. */
  closeConnection?: (connectionId: string) => Promise<void>;
  schedules?: ScheduleStore;
  nowMs?: () => number;
  batchOptions?: BatchOptions;
  /** Called after every checkpointed batch (tests inject a crash here). */
  afterBatch?: (phase: string) => Promise<void> | void;
  /** The catalog's type lookup: a scheduled event's recipients and followee derived from its data count as roles too. */
  findType?: ValidateEventInput['findType'];
  /** A WARN line (an item or schedule of unknown kind, kept); default: one JSON line on stderr. */
  warn?: (message: string, context: Record<string, unknown>) => void;
}

/** The default WARN sink: one JSON line on stderr (the operator's terminal or the job's log). */
function warnOnStderr(message: string, context: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level: 'WARN', message, ...context })}\n`);
}

export interface ErasureStepResult {
  done: boolean;
  /** Not done because of the grace period: call again after this long. */
  waitMs?: number;
  report: ErasureReport;
}

interface ErasureRecord {
  id: string;
  status: 'running' | 'done';
  erasedAtMs: number;
  expiration: number;
  phase: number;
  cursor?: Item;
  report: ErasureReport;
}

type Phase =
  | { kind: 'grace' }
  | { kind: 'connections' }
  | { kind: 'partition'; partition: UserPartition }
  | { kind: 'scan'; table: TableName }
  | { kind: 'schedules' };

export const DEFAULT_ERASURE_STEP_BUDGET = 20_000;
const SCAN_PAGE_UNITS = 100;
const PAGE_LIMIT = 1_000;
/** Updates of shared items (pack chunks, count index slots) in flight per Scan page. */
const SHARED_UPDATES_IN_FLIGHT = 8;

export class UserEraser {
  private readonly phases: Phase[];

  constructor(
    private readonly options: UserEraserOptions,
    private readonly subject: ErasureSubject,
  ) {
    this.phases = [
      { kind: 'grace' },
      { kind: 'connections' },
      ...userPartitions(subject, options.feedShards).map((partition): Phase => ({ kind: 'partition', partition })),
      ...TABLE_NAMES.map((table): Phase => ({ kind: 'scan', table })),
      { kind: 'schedules' },
    ];
  }

  private get writes(): ErasureWrites {
    return { client: this.options.client, tables: this.options.tables, ...(this.options.batchOptions ? { batchOptions: this.options.batchOptions } : {}) };
  }

  private now(): number {
    return this.options.nowMs?.() ?? Date.now();
  }

  private get recordKey(): { id: string } {
    return { id: erasureRecordId(this.subject) };
  }

  /** The stored record; undefined before the first step. */
  async record(): Promise<ErasureRecord | undefined> {
    const output = await this.options.client.send(new GetCommand({ TableName: this.options.tables.idempotency, Key: this.recordKey, ConsistentRead: true }));
    return output.Item as ErasureRecord | undefined;
  }

  /** Runs steps until done, sleeping through the grace period. */
  async run(sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms))): Promise<ErasureReport> {
    for (;;) {
      const result = await this.step();
      if (result.done) return result.report;
      if (result.waitMs !== undefined) await sleep(result.waitMs);
    }
  }

  /** One bounded invocation: resumes from the checkpoint (or starts: tombstone), works up to the budget. */
  async step(): Promise<ErasureStepResult> {
    let record = await this.record();
    if (!record || record.status === 'done') record = await this.writeTombstone(record);
    record.report.steps += 1;
    let budget = this.options.stepBudget ?? DEFAULT_ERASURE_STEP_BUDGET;
    while (record.phase < this.phases.length && budget > 0) {
      const phase = this.phases[record.phase]!;
      if (phase.kind === 'grace') {
        const waitMs = record.erasedAtMs + this.options.graceMs - this.now();
        if (waitMs > 0) {
          await this.save(record);
          return { done: false, waitMs, report: record.report };
        }
        record.phase += 1;
        continue;
      }
      const batch = await this.runBatch(phase, record, budget);
      budget -= batch.units;
      if (batch.finished) {
        record.phase += 1;
        delete record.cursor;
      }
      await this.save(record);
      await this.options.afterBatch?.(phaseName(phase));
    }
    if (record.phase < this.phases.length) return { done: false, report: record.report };
    record.status = 'done';
    delete record.cursor;
    await this.save(record);
    return { done: true, report: record.report };
  }

  /** The tombstone, before anything is deleted; a rerun after a finished erasure starts a fresh pass with a new tombstone time. */
  private async writeTombstone(previous: ErasureRecord | undefined): Promise<ErasureRecord> {
    const nowMs = this.now();
    const record: ErasureRecord = {
      ...this.recordKey,
      status: 'running',
      erasedAtMs: nowMs,
      expiration: Math.floor(nowMs / 1000) + this.options.tombstoneTtlSeconds,
      phase: 0,
      report: emptyErasureReport(),
    };
    void previous;
    await this.save(record);
    return record;
  }

  private async save(record: ErasureRecord): Promise<void> {
    await this.options.client.send(new PutCommand({ TableName: this.options.tables.idempotency, Item: record }));
  }

  private async runBatch(phase: Phase, record: ErasureRecord, budget: number): Promise<{ units: number; finished: boolean }> {
    switch (phase.kind) {
      case 'connections':
        return this.closeConnections(record, budget);
      case 'partition':
        return this.deletePartitionPage(phase.partition, record, budget);
      case 'scan':
        return this.scanPage(phase.table, record, budget);
      case 'schedules':
        return this.deleteSchedules(record.report);
      default:
        return { units: 0, finished: true };
    }
  }

  /** One page of the user's connection items: close each, delete its reverse item (the items go with the partition). */
  private async closeConnections(record: ErasureRecord, budget: number): Promise<{ units: number; finished: boolean }> {
    const output = await this.options.client.send(
      new QueryCommand({
        TableName: this.options.tables.connections,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': userPartition(this.subject.tenantId, this.subject.userId), ':prefix': 'C#' },
        ProjectionExpression: 'sk',
        Limit: Math.min(PAGE_LIMIT, budget),
        ...(record.cursor ? { ExclusiveStartKey: record.cursor } : {}),
      }),
    );
    const connectionIds = (output.Items ?? []).map((item) => String(item.sk).slice('C#'.length));
    for (const connectionId of connectionIds) await this.options.closeConnection?.(connectionId);
    await deleteKeys(this.writes, 'connections', connectionIds.map((connectionId): Item => ({ ...keys.connectionReverse(connectionId) })));
    countRemoved(record.report, 'connections', 'connectionReverse', connectionIds.length);
    if (this.options.closeConnection) record.report.connectionsClosed += connectionIds.length;
    if (output.LastEvaluatedKey) record.cursor = output.LastEvaluatedKey;
    return { units: connectionIds.length + 1, finished: output.LastEvaluatedKey === undefined };
  }

  /**
   * One page of a user partition's keys, deleted. Continues after the last deleted key (a store need
   * not skip what it just deleted); a run that crashed before saving it re-reads gone keys only.
   */
  private async deletePartitionPage(partition: UserPartition, record: ErasureRecord, budget: number): Promise<{ units: number; finished: boolean }> {
    const spec = tableSpecs[partition.table];
    const limit = Math.min(PAGE_LIMIT, budget);
    const output = await this.options.client.send(
      new QueryCommand({
        TableName: this.options.tables[partition.table],
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': spec.partitionKey.name, '#sk': spec.sortKey.name },
        ExpressionAttributeValues: { ':pk': partition.pk },
        ProjectionExpression: '#pk, #sk',
        Limit: limit,
        ...(record.cursor ? { ExclusiveStartKey: record.cursor } : {}),
      }),
    );
    const items = output.Items ?? [];
    await deleteKeys(this.writes, partition.table, items);
    countRemoved(record.report, partition.table, partition.kind, items.length);
    if (output.LastEvaluatedKey) record.cursor = output.LastEvaluatedKey;
    return { units: items.length + 1, finished: output.LastEvaluatedKey === undefined };
  }

  /**
   * One Scan page of a table (this tenant's items and tenantless records), each item decided by its
   * kind and roles: deleted (an edge the user followed lowers its followee's count; a notification
   * they authored takes the recipient's read state of it along), its user's parts taken out, or kept
   * (an unknown kind is counted and logged).
   */
  private async scanPage(table: TableName, record: ErasureRecord, budget: number): Promise<{ units: number; finished: boolean }> {
    const output = await this.options.client.send(new ScanCommand({ ...erasureScanInput(this.options.tables, table, this.subject.tenantId), Limit: Math.min(PAGE_LIMIT, Math.max(budget, 1)), ...(record.cursor ? { ExclusiveStartKey: record.cursor } : {}) }));
    const deletes: Item[] = [];
    const readStateReferences: Item[] = [];
    const edges: { item: Item; followeeProfile: { pk: string; sk: string } }[] = [];
    const shared: { item: Item; parts: SharedItemPartsNamingUser }[] = [];
    for (const item of output.Items ?? []) {
      const verdict = classifyStoredItem(table, item, this.subject);
      if (verdict.action === 'unknown') this.keepUnknown(table, item, verdict, record.report);
      else if (verdict.action === 'removeParts') shared.push({ item, parts: verdict.parts });
      else if (verdict.action === 'delete' && verdict.followeeProfile) edges.push({ item, followeeProfile: verdict.followeeProfile });
      else if (verdict.action === 'delete') {
        deletes.push(item);
        countRemoved(record.report, table, verdict.kind, 1);
        for (const reference of verdict.readStateReferences ?? []) readStateReferences.push({ ...reference });
      }
    }
    // A celebrity's erasure touches one pack chunk per follower: a few updates in flight, not one at a time.
    await forEachBounded(shared, SHARED_UPDATES_IN_FLIGHT, async ({ item, parts }) => {
      countRemoved(record.report, table, parts.kind, await removeSharedParts(this.writes, table, item, parts, this.subject));
    });
    for (const { item, followeeProfile } of edges) {
      if (await removeOutgoingEdge(this.writes, item, followeeProfile)) record.report.followCountsLowered += 1;
      countRemoved(record.report, table, 'followingEdge', 1);
    }
    await deleteKeys(this.writes, table, deletes);
    // Not counted: most notifications have no read state of their own (the marks cover them).
    await deleteKeys(this.writes, 'readMarks', readStateReferences);
    if (output.LastEvaluatedKey) record.cursor = output.LastEvaluatedKey;
    return { units: SCAN_PAGE_UNITS + deletes.length + edges.length + shared.length, finished: output.LastEvaluatedKey === undefined };
  }

  private keepUnknown(table: TableName, item: Item, verdict: Extract<ItemVerdict, { action: 'unknown' }>, report: ErasureReport): void {
    countUnknownKept(report, table);
    const key = tableSpecs[table];
    this.warn('erasure kept an item of unknown kind (never deleted on a guess): check what wrote it', {
      table,
      key: 'sortKey' in key ? { pk: item.pk, sk: item.sk } : { id: item.id },
      reason: verdict.reason,
    });
  }

  private warn(message: string, context: Record<string, unknown>): void {
    (this.options.warn ?? warnOnStderr)(message, context);
  }

  /** Pending schedules that belong to the user or that they authored, by the roles in their payload (`classifySchedule`). */
  private async deleteSchedules(report: ErasureReport): Promise<{ units: number; finished: boolean }> {
    const store = this.options.schedules;
    if (!store) return { units: 0, finished: true };
    const pending = await store.list();
    for (const schedule of pending) {
      const verdict = classifySchedule(schedule.payload, this.subject, this.options.findType);
      if (verdict.action === 'delete' && (await store.delete(schedule.name))) report.schedulesDeleted += 1;
      if (verdict.action === 'keep' && verdict.role === 'recipientAmongOthers') report.schedulesKeptNamingUser = (report.schedulesKeptNamingUser ?? 0) + 1;
      if (verdict.action === 'unknown') {
        report.schedulesUnknown = (report.schedulesUnknown ?? 0) + 1;
        this.warn('erasure kept a schedule whose payload is of no known kind (never deleted on a guess)', { schedule: schedule.name, targetArn: schedule.targetArn });
      }
    }
    return { units: pending.length + 1, finished: true };
  }
}

function phaseName(phase: Phase): string {
  switch (phase.kind) {
    case 'partition':
      return `partition:${phase.partition.table}:${phase.partition.kind}`;
    case 'scan':
      return `scan:${phase.table}`;
    default:
      return phase.kind;
  }
}
