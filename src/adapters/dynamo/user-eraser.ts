/**
 * Erases one user from every table, in bounded steps with a checkpoint, so a user with a million
 * follow edges spans several invocations and a crash resumes where the last batch ended. Its cost
 * follows their footprint, never the table: every read is a Query of their partitions or of the
 * sparse owner and author indexes under their id, or a read of keys computed from those.
 *
 * 1. tombstone: the erasure record (Idempotency table, hashed id, TTL) is written first; every
 *    consumer that sends to a user reads it (fan-out, live delivery, held releases, push, email);
 * 2. channels: each device's SNS platform endpoint and their channel records (devices, push consent,
 *    email address, unsubscribes) go at once, before anything waits, so an erasure cut short keeps
 *    no address;
 * 3. grace: nothing else is deleted until `graceMs` after the tombstone, so a fan-out that read "not
 *    erased" just before it has finished writing (set it to at least the fan-out function timeout);
 * 4. cross-references, found from their own partitions (`erasure-phases.ts`): connections closed
 *    with their subscriptions; their id out of their online followers' connections; their followers'
 *    FOLLOWING entries, FOLLOWING_CELEBS edges and pack elements; their follower items in the
 *    accounts they follow(ed) (counts lowered); their alert subscribers' ALERTING references to them
 *    and their own alert subscriptions under the accounts (from their ALERTING list); their posts in their followers' and former followers'
 *    inboxes (recomputed ids from the follow histories) and the notifications the author index holds, with the recipients' read state;
 *    their celebrity posts log entries and count index entries; their owner-index records (rate
 *    windows, holds, sends, traces) and the schedules those name;
 * 5. their own partitions, whole; 6. their export documents.
 *
 * Every step is idempotent (deletes; a count is lowered only by the delete that removed a counted
 * edge), and the checkpoint is written after each batch, so running it twice or after a kill ends
 * the same.
 */
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { countRemoved, emptyErasureReport, ErasureConflictError, erasureRecordId, userPartitions, type ErasureReport, type ErasureSubject, type UserPartition } from '../../core/privacy/erasure.js';
import { ONLINE_SUBSCRIBER_SHARDS } from '../../core/live/online-followers.js';
import { tableSpecs, type TableName } from '../../table-specs.js';
import type { BatchOptions, Item } from './batch.js';
import {
  eraseCelebrityPosts,
  eraseChannels,
  eraseFromAlertSubscribers,
  eraseOwnAlertSubscriptions,
  eraseConnections,
  eraseFollowerCopies,
  eraseFromFollowees,
  eraseFromFollowers,
  eraseFromSubscribers,
  eraseIndexedAuthored,
  eraseOwnerRecords,
  PAGE_LIMIT,
  type Cursor,
  type PhaseContext,
  type PhaseStep,
} from './erasure-phases.js';
import { deleteKeys, type ErasureWrites } from './erasure-writes.js';

/** Pending one-time schedules deleted by name (EventBridge Scheduler, the local scheduler). */
export interface ScheduleStore {
  /** True when it existed. */
  delete(name: string): Promise<boolean> | boolean;
}

/** The export documents of a user (the export store), deleted with them. */
export interface ExportsOfUser {
  /** Deletes every export document of the subject; answers how many there were. */
  deleteExportsOf(subject: ErasureSubject): Promise<number>;
}

export interface UserEraserOptions {
  client: DynamoDBDocumentClient;
  tables: Record<TableName, string>;
  feedShards: number;
  /** Wait between the tombstone and the first delete after the channels (>= the fan-out function timeout on AWS). */
  graceMs: number;
  /** How long the tombstone outlives the erasure (in-flight and retried events, scheduled sends). */
  tombstoneTtlSeconds: number;
  /** Work units per step: about one per item read or deleted. */
  stepBudget?: number;
  /** Closes a live connection (API Gateway DeleteConnection); gone connections are not an error. */
  closeConnection?: (connectionId: string) => Promise<void>;
  /** Deletes an SNS platform endpoint of one of their devices (a gone one is not an error). */
  deletePushEndpoint?: (endpointArn: string) => Promise<void>;
  schedules?: ScheduleStore;
  exports?: ExportsOfUser;
  nowMs?: () => number;
  batchOptions?: BatchOptions;
  /** Called after every checkpointed batch (tests inject a crash here). */
  afterBatch?: (phase: string) => Promise<void> | void;
  /** A WARN line (a shared item of unknown kind, kept); default: one JSON line on stderr. */
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

export interface ErasureRecord {
  id: string;
  status: 'running' | 'done';
  erasedAtMs: number;
  expiration: number;
  phase: number;
  cursor?: Cursor;
  report: ErasureReport;
  /** When the last run finished (epoch ms). */
  doneAtMs?: number;
  /** Bumped by every save; a save expects the version it read (two runs of one erasure never both go on). */
  version?: number;
}

type Phase =
  | { kind: 'grace' }
  | { kind: 'footprint'; name: string; run: (ctx: PhaseContext, cursor: Cursor | undefined, budget: number) => Promise<PhaseStep> }
  | { kind: 'partition'; partition: UserPartition }
  | { kind: 'exports' };

export const DEFAULT_ERASURE_STEP_BUDGET = 20_000;

export class UserEraser {
  private readonly phases: Phase[];

  constructor(
    private readonly options: UserEraserOptions,
    private readonly subject: ErasureSubject,
  ) {
    const footprint = (name: string, run: Extract<Phase, { kind: 'footprint' }>['run']): Phase => ({ kind: 'footprint', name, run });
    this.phases = [
      footprint('channels', eraseChannels),
      { kind: 'grace' },
      footprint('connections', eraseConnections),
      footprint('onlineSubscribers', eraseFromSubscribers),
      footprint('followers', eraseFromFollowers),
      footprint('following', eraseFromFollowees),
      footprint('alertSubscribers', eraseFromAlertSubscribers),
      footprint('alertSubscriptions', eraseOwnAlertSubscriptions),
      footprint('followerCopies', eraseFollowerCopies),
      footprint('authorIndex', eraseIndexedAuthored),
      footprint('celebrityPosts', eraseCelebrityPosts),
      footprint('ownerRecords', eraseOwnerRecords),
      ...userPartitions(subject, options.feedShards, ONLINE_SUBSCRIBER_SHARDS).map((partition): Phase => ({ kind: 'partition', partition })),
      { kind: 'exports' },
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
      budget -= Math.max(1, batch.units);
      if (batch.cursor) record.cursor = batch.cursor;
      else {
        record.phase += 1;
        delete record.cursor;
      }
      await this.save(record);
      await this.options.afterBatch?.(phaseName(phase));
    }
    if (record.phase < this.phases.length) return { done: false, report: record.report };
    record.status = 'done';
    record.doneAtMs = this.now();
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
      ...(previous?.version !== undefined ? { version: previous.version } : {}),
    };
    await this.save(record);
    return record;
  }

  /** Conditional on the version this run last read or wrote: another run's save in between stops this one (ErasureConflictError). */
  private async save(record: ErasureRecord): Promise<void> {
    const expected = record.version;
    const next = { ...record, version: (expected ?? 0) + 1 };
    try {
      await this.options.client.send(
        new PutCommand({
          TableName: this.options.tables.idempotency,
          Item: next,
          ConditionExpression: expected === undefined ? 'attribute_not_exists(id) OR attribute_not_exists(version)' : 'version = :version',
          ...(expected === undefined ? {} : { ExpressionAttributeValues: { ':version': expected } }),
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new ErasureConflictError('another run of this erasure saved its checkpoint meanwhile: this run stops');
      throw error;
    }
    record.version = next.version;
  }

  private context(record: ErasureRecord): PhaseContext {
    const { options } = this;
    return {
      writes: this.writes,
      subject: this.subject,
      report: record.report,
      feedShards: options.feedShards,
      warn: options.warn ?? warnOnStderr,
      ...(options.deletePushEndpoint ? { deletePushEndpoint: options.deletePushEndpoint } : {}),
      ...(options.closeConnection ? { closeConnection: options.closeConnection } : {}),
      ...(options.schedules ? { deleteSchedule: (name: string) => options.schedules!.delete(name) } : {}),
    };
  }

  private async runBatch(phase: Exclude<Phase, { kind: 'grace' }>, record: ErasureRecord, budget: number): Promise<PhaseStep> {
    switch (phase.kind) {
      case 'footprint':
        return phase.run(this.context(record), record.cursor, budget);
      case 'partition':
        return this.deletePartitionPage(phase.partition, record, budget);
      case 'exports': {
        const deleted = (await this.options.exports?.deleteExportsOf(this.subject)) ?? 0;
        record.report.exportsDeleted = (record.report.exportsDeleted ?? 0) + deleted;
        return { units: deleted + 1 };
      }
    }
  }

  /**
   * One page of a user partition's keys, deleted. Continues after the last deleted key (a store need
   * not skip what it just deleted); a run that crashed before saving it re-reads gone keys only.
   */
  private async deletePartitionPage(partition: UserPartition, record: ErasureRecord, budget: number): Promise<PhaseStep> {
    const spec = tableSpecs[partition.table];
    const output = await this.options.client.send(
      new QueryCommand({
        TableName: this.options.tables[partition.table],
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': spec.partitionKey.name, '#sk': spec.sortKey.name },
        ExpressionAttributeValues: { ':pk': partition.pk },
        ProjectionExpression: '#pk, #sk',
        Limit: Math.max(1, Math.min(PAGE_LIMIT, budget)),
        ...(record.cursor ? { ExclusiveStartKey: record.cursor } : {}),
      }),
    );
    const items: Item[] = output.Items ?? [];
    await deleteKeys(this.writes, partition.table, items);
    countRemoved(record.report, partition.table, partition.kind, items.length);
    return { units: items.length + 1, ...(output.LastEvaluatedKey ? { cursor: output.LastEvaluatedKey } : {}) };
  }
}

function phaseName(phase: Phase): string {
  switch (phase.kind) {
    case 'partition':
      return `partition:${phase.partition.table}:${phase.partition.kind}`;
    case 'footprint':
      return phase.name;
    default:
      return phase.kind;
  }
}
