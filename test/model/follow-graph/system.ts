/**
 * The system under test of the follow-graph model: the real fan-out handler (Powertools idempotency,
 * FanOutService, the Dynamo repositories), the real promotion handler and the real read service on
 * in-process dynalite, fed by in-memory intake queues (one per type, plus the promotion queue).
 *
 * Faults: a processing attempt can be killed at its n-th DynamoDB request (that request and every
 * later one of the attempt fail, as after kill -9; requests already sent complete); the message
 * stays queued and its IN_PROGRESS idempotency record is expired as the Lambda timeout would before
 * SQS hands it out again. Attempts run concurrently under a fast-check scheduler that releases one
 * waiting DynamoDB request at a time, once every running attempt waits (`processTogether`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import type fc from 'fast-check';
import { DynamoArrivalLedger } from '../../../src/adapters/dynamo/arrival-ledger.js';
import { DynamoCelebrityPostsLog } from '../../../src/adapters/dynamo/celebrity-posts-log.js';
import { FollowGraphRepository } from '../../../src/adapters/dynamo/follow-graph-repository.js';
import { GraphRepository } from '../../../src/adapters/dynamo/graph-repository.js';
import { InboxRepository } from '../../../src/adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../../../src/adapters/dynamo/read-state-repository.js';
import { DynamoRecentPostsLog } from '../../../src/adapters/dynamo/recent-posts-log.js';
import { DynamoTraceRepository } from '../../../src/adapters/dynamo/trace-repository.js';
import { CelebrityPromotionService } from '../../../src/core/fanout/celebrity-promotion.js';
import { FanOutService } from '../../../src/core/fanout/fanout-service.js';
import type { DeliveryJob } from '../../../src/core/jobs/delivery-job.js';
import type { PromotionJob } from '../../../src/core/jobs/promotion-job.js';
import { FAN_OUT_IDEMPOTENCY_PREFIX, keys, userPartition } from '../../../src/core/model/keys.js';
import { neverFailing } from '../../../src/core/ports/trace.js';
import { InboxReadService } from '../../../src/core/read/inbox-read-service.js';
import { createCelebrityPromotionHandler } from '../../../src/handlers/celebrity-promotion-handler.js';
import { createFanOutHandler, type SqsBatchHandler } from '../../../src/handlers/fanout-handler.js';
import { localLambdaContext } from '../../../src/local/sqs/lambda-context.js';
import { findNotificationType } from '../../../src/notifications/index.js';
import type { TableName } from '../../../src/table-specs.js';
import { anSqsEvent, anSqsRecord, eventBridgeBody } from '../../support/events.js';
import type { InProcessDynamo } from '../../support/in-process-dynamo.js';

export const FEED_SHARDS = 2;
export const INBOX_TTL_DAYS = 90;
export const CURSOR_SECRET = 'follow-model-cursor-secret';
export type QueueName = 'follow.created' | 'follow.deleted' | 'post.published' | 'promotion';

export interface QueuedMessage {
  messageId: string;
  queue: QueueName;
  body: string;
  sentMs: number;
  receiveCount: number;
  /** The producer event id (intake queues). */
  eventId?: string;
  /** The account of a promotion pass page. */
  celebrityId?: string;
}

export class VirtualClock {
  constructor(private now: number) {}
  nowMs(): number {
    return this.now;
  }
  advance(ms: number): void {
    this.now += ms;
  }
}

export const readerCommands = new Map<string, number>();

const keyString = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof (value as { S?: unknown } | undefined)?.S === 'string' ? (value as { S: string }).S : undefined);

/** The partition keys a write request names (marshalled or not), with its update expression. */
function writtenKeys(input: Record<string, unknown>): Array<{ pk: string; expression: string }> {
  const expression = typeof input.UpdateExpression === 'string' ? input.UpdateExpression : '';
  const keysOf = (record: unknown): string[] => {
    const pk = keyString((record as { pk?: unknown } | undefined)?.pk);
    return pk === undefined ? [] : [pk];
  };
  const single = [...keysOf(input.Key), ...keysOf(input.Item)].map((pk) => ({ pk, expression }));
  const batch = Object.values((input.RequestItems ?? {}) as Record<string, Array<{ PutRequest?: { Item?: unknown }; DeleteRequest?: { Key?: unknown } }>>).flatMap((requests) =>
    requests.flatMap((request) => [...keysOf(request.PutRequest?.Item), ...keysOf(request.DeleteRequest?.Key)].map((pk) => ({ pk, expression: '' }))),
  );
  return [...single, ...batch];
}
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'PutCommand', 'UpdateCommand', 'DeleteCommand', 'BatchWriteCommand']);

class KilledError extends Error {
  override readonly name = 'KilledError';
}

interface Attempt {
  requests: number;
  killAt?: number;
  killed: boolean;
}

/** Releases one waiting request at a time, in the scheduler's order, once every running attempt waits. */
class RequestGate {
  scheduler: fc.Scheduler | undefined;
  inFlight = 0;
  waiting = 0;
  running = 0;

  async pass(label: string): Promise<void> {
    if (!this.scheduler) return;
    this.waiting += 1;
    try {
      await this.scheduler.schedule(Promise.resolve(label), label);
    } finally {
      this.waiting -= 1;
    }
  }

  /** Until the running attempts finish: let them run until each waits at the gate (or ends), then release one request. */
  async drive(done: Promise<unknown>): Promise<void> {
    let finished = false;
    void done.finally(() => (finished = true));
    const scheduler = this.scheduler!;
    while (!finished) {
      // Settle: nothing in flight and a few turns of the event loop with no new waiter.
      let idleTurns = 0;
      while (idleTurns < 3 && !finished) {
        const before = this.waiting;
        await new Promise((resolve) => setImmediate(resolve));
        idleTurns = this.inFlight === 0 && this.waiting === before ? idleTurns + 1 : 0;
      }
      if (finished) break;
      if (scheduler.count() === 0) continue;
      await scheduler.waitNext(1);
    }
  }
}

export interface SystemOptions {
  dynamo: InProcessDynamo;
  tables: Record<TableName, string>;
  users: readonly string[];
  celebrityThreshold: number;
}

/**
 * One Lambda container: its own DynamoDB client (the gate and the kill on its middleware stack),
 * repositories, fan-out service and handlers. Concurrent receives run in different containers, as on
 * AWS, so the attempt a request belongs to is the container's current one.
 */
class Container {
  readonly handlers = new Map<QueueName, SqsBatchHandler>();
  attempt: Attempt | undefined;
  readonly documentClient: DynamoDBDocumentClient;

  constructor(system: FollowGraphSystem, options: SystemOptions, gate: RequestGate, count: (ms: number) => void) {
    const clients = options.dynamo.newDocumentClient();
    this.documentClient = clients.documentClient;
    // The gate and the kill sit outside the SDK's retries: a killed request is not retried.
    clients.client.middlewareStack.add(
      (next, context) => async (args) => {
        await gate.pass(String(context.commandName));
        const { attempt } = this;
        if (attempt) {
          attempt.requests += 1;
          if (attempt.killed || (attempt.killAt !== undefined && attempt.requests > attempt.killAt)) {
            attempt.killed = true;
            throw new KilledError(`killed before request ${attempt.requests}`);
          }
        }
        gate.inFlight += 1;
        if (WRITES.has(String(context.commandName))) {
          system.writes += 1;
          system.noteWrite(args.input as Record<string, unknown>);
        }
        const started = performance.now();
        try {
          return await next(args);
        } finally {
          gate.inFlight -= 1;
          count(performance.now() - started);
        }
      },
      { step: 'initialize', name: 'followModelFaults' },
    );
    const { tables } = options;
    const writer = this.documentClient;
    const noWait = { sleep: async () => undefined };
    const graph = new FollowGraphRepository(writer, tables.graph, noWait);
    // A dead process sends nothing: the in-memory queues refuse a killed attempt's messages too.
    const alive = () => {
      if (this.attempt?.killed) throw new KilledError('killed before enqueue');
    };
    const promotionQueue = {
      enqueue: async (job: PromotionJob) => {
        alive();
        system.send('promotion', JSON.stringify(job), { celebrityId: job.celebrityId });
      },
    };
    const deliveryQueue = { enqueue: async (_jobs: readonly DeliveryJob[]) => alive() };
    const trace = neverFailing(new DynamoTraceRepository(writer, { idempotencyTable: tables.idempotency, inboxTable: tables.inbox }, undefined, system.clock), () => undefined);
    const service = new FanOutService({
      graph,
      inbox: new InboxRepository(writer, tables.inbox, noWait),
      arrivals: new DynamoArrivalLedger(writer, tables.idempotency),
      recentPosts: new DynamoRecentPostsLog(writer, tables.inbox),
      celebrityPostsIndex: new DynamoCelebrityPostsLog(writer, tables.inbox),
      clock: system.clock,
      deliveryQueue,
      promotionQueue,
      settings: { celebrityThreshold: options.celebrityThreshold, feedShards: FEED_SHARDS, inboxTtlDays: INBOX_TTL_DAYS },
      trace,
    });
    const logger = new Logger({ serviceName: 'follow-model', logLevel: 'SILENT' });
    const persistenceStore = new DynamoDBPersistenceLayer({ tableName: tables.idempotency, awsSdkV3Client: clients.client });
    for (const queue of ['follow.created', 'follow.deleted', 'post.published'] as const) {
      this.handlers.set(queue, createFanOutHandler({ notificationType: findNotificationType(queue)!, findType: findNotificationType, service, logger, persistenceStore, trace }));
    }
    const promotion = new CelebrityPromotionService({ graph, queue: promotionQueue, celebrityThreshold: options.celebrityThreshold });
    this.handlers.set('promotion', createCelebrityPromotionHandler({ service: promotion, logger }));
  }
}

/** One sequence's system: its own tenant on the shared tables. */
export class FollowGraphSystem {
  readonly tenantId = `t${randomUUID().slice(0, 12)}`;
  readonly clock = new VirtualClock(Date.now());
  readonly queue: QueuedMessage[] = [];
  private readonly gate = new RequestGate();
  private readonly containers: Container[];
  private readonly reader: DynamoDBDocumentClient;
  readonly reads: InboxReadService;
  readonly traces: DynamoTraceRepository;
  private messages = 0;
  /** DynamoDB requests sent by processing and by the checks, and the time spent in them. */
  requests = 0;
  requestMs = 0;
  readerRequests = 0;
  /** Write requests the containers sent (a step that wrote nothing changed no view). */
  writes = 0;
  /** The users whose view a write since `takeTouched` may have changed (`all`: a feed, a feed head or the celebrity posts log). */
  private touched: Set<string> | 'all' = new Set();

  constructor(private readonly options: SystemOptions) {
    const count = (ms: number) => {
      this.requests += 1;
      this.requestMs += ms;
    };
    this.containers = [new Container(this, options, this.gate, count), new Container(this, options, this.gate, count)];
    const reader = options.dynamo.newDocumentClient();
    this.reader = reader.documentClient;
    reader.client.middlewareStack.add(
      (next, _context) => async (args) => {
        this.readerRequests += 1;
        readerCommands.set(String(_context.commandName), (readerCommands.get(String(_context.commandName)) ?? 0) + 1);
        const started = performance.now();
        try {
          return await next(args);
        } finally {
          count(performance.now() - started);
        }
      },
      { step: 'initialize', name: 'followModelRequests' },
    );
    const { tables } = options;
    this.traces = new DynamoTraceRepository(this.reader, { idempotencyTable: tables.idempotency, inboxTable: tables.inbox }, undefined, this.clock);
    const readGraph = new GraphRepository(this.reader, tables.graph);
    this.reads = new InboxReadService({
      inbox: new InboxRepository(this.reader, tables.inbox),
      celebrities: readGraph,
      feedHeads: readGraph,
      readState: new ReadStateRepository(this.reader, tables.readMarks),
      clock: this.clock,
      cursorSecret: CURSOR_SECRET,
      feedShards: FEED_SHARDS,
      inboxTtlDays: INBOX_TTL_DAYS,
    });
  }

  /**
   * Which views a write can change: a user's own partitions (inbox, followed-celebrities pack, read
   * state) change theirs; a feed, a profile's feed heads or the celebrity posts log anyone's; the rest
   * (ledger, trace, idempotency, recent posts logs, follower items, counts) no view directly.
   */
  noteWrite(input: Record<string, unknown>): void {
    if (this.touched === 'all') return;
    for (const { pk, expression } of writtenKeys(input)) {
      if (pk.includes('#F#') || pk.includes('#CP#S') || pk.includes('#CPX#S') || (pk.endsWith('#PROFILE') && /FeedId/.test(expression))) {
        this.touched = 'all';
        return;
      }
      for (const user of this.options.users) if (pk === userPartition(this.tenantId, user) || pk === keys.followedCelebsPackPartition(this.tenantId, user)) this.touched.add(user);
    }
  }

  /** The users touched since the last call. */
  takeTouched(): Set<string> | 'all' {
    const touched = this.touched;
    this.touched = new Set();
    return touched;
  }

  send(queue: QueueName, body: string, extra: Pick<QueuedMessage, 'eventId' | 'celebrityId'> = {}): QueuedMessage {
    this.messages += 1;
    const message: QueuedMessage = { messageId: `m${this.messages}`, queue, body, sentMs: this.clock.nowMs(), receiveCount: 0, ...extra };
    this.queue.push(message);
    return message;
  }

  /** A producer's PutEvents, delivered by the rule to the type's intake queue (SentTimestamp = now). */
  publish(type: Exclude<QueueName, 'promotion'>, eventId: string, actor: string, followee?: string): QueuedMessage {
    const data = type === 'post.published' ? { postId: eventId, title: `post ${eventId}` } : { followeeId: followee! };
    return this.send(type, eventBridgeBody(type, { id: eventId, tenantId: this.tenantId, actor: { id: actor }, data }), { eventId });
  }

  /** SQS hands the same message out again (at-least-once): same body, same SentTimestamp. */
  redeliver(message: QueuedMessage): void {
    this.queue.push({ ...message });
  }

  /** One receive of `message` in a container: 'done' (deleted from its queue) or 'failed' (stays for a retry). */
  async process(message: QueuedMessage, killAt?: number, container = 0): Promise<'done' | 'failed'> {
    const index = this.queue.indexOf(message);
    if (index < 0) throw new Error(`message ${message.messageId} is not queued`);
    message.receiveCount += 1;
    const record = anSqsRecord(message.body, message.messageId);
    record.attributes.SentTimestamp = String(message.sentMs);
    record.attributes.ApproximateReceiveCount = String(message.receiveCount);
    const attempt: Attempt = { requests: 0, killed: false, ...(killAt !== undefined ? { killAt } : {}) };
    const runner = this.containers[container]!;
    runner.attempt = attempt;
    let answer;
    try {
      answer = await runner.handlers.get(message.queue)!(anSqsEvent([record]), localLambdaContext('follow-model'));
    } finally {
      runner.attempt = undefined;
    }
    if (attempt.killed && message.eventId !== undefined) await this.expireInProgress(message);
    if (answer.batchItemFailures.length > 0 || attempt.killed) return 'failed';
    this.queue.splice(this.queue.indexOf(message), 1);
    return 'done';
  }

  /** Receives at once, one per container, their DynamoDB requests interleaved by `scheduler`. */
  async processTogether(runs: ReadonlyArray<{ message: QueuedMessage; killAt?: number }>, scheduler: fc.Scheduler): Promise<Array<'done' | 'failed'>> {
    if (runs.length > this.containers.length) throw new Error(`${runs.length} receives at once, ${this.containers.length} containers`);
    this.gate.scheduler = scheduler;
    try {
      const all = Promise.all(runs.map(({ message, killAt }, container) => this.process(message, killAt, container)));
      await this.gate.drive(all);
      return await all;
    } finally {
      this.gate.scheduler = undefined;
    }
  }

  /** The Lambda timeout of a killed run passes before SQS hands the message out again: its IN_PROGRESS record expires. */
  private async expireInProgress(message: QueuedMessage): Promise<void> {
    const key = [message.queue, this.tenantId, message.eventId];
    const id = `${FAN_OUT_IDEMPOTENCY_PREFIX}#${createHash('md5').update(JSON.stringify(key)).digest('base64')}`;
    try {
      await this.reader.send(
        new UpdateCommand({
          TableName: this.options.tables.idempotency,
          Key: { id },
          UpdateExpression: 'SET in_progress_expiration = :past',
          ConditionExpression: '#status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':past': 0, ':inProgress': 'INPROGRESS' },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** The arrival ledger's record of an event: the stamp of its ids and (since issue 26) its intake. */
  async arrivalRecord(type: string, eventId: string): Promise<{ arrivalMs?: number; intakeMs?: number; mode?: 'ordinary' | 'celebrity' } | undefined> {
    const output = await this.reader.send(new GetCommand({ TableName: this.options.tables.idempotency, Key: { id: keys.arrivalRecordId(this.tenantId, type, eventId) }, ConsistentRead: true }));
    if (!output.Item) return undefined;
    const { arrivalMs, intakeMs, mode } = output.Item as { arrivalMs?: number; intakeMs?: number; mode?: 'ordinary' | 'celebrity' };
    return { ...(arrivalMs !== undefined ? { arrivalMs } : {}), ...(intakeMs !== undefined ? { intakeMs } : {}), ...(mode !== undefined ? { mode } : {}) };
  }

  /** Whether an item exists (the store as it is, for observing how a post was fanned out). */
  async itemExists(table: TableName, key: { pk: string; sk: string }): Promise<boolean> {
    return (await this.reader.send(new GetCommand({ TableName: this.options.tables[table], Key: key, ConsistentRead: true }))).Item !== undefined;
  }

  async getItem(table: TableName, key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    return (await this.reader.send(new GetCommand({ TableName: this.options.tables[table], Key: key, ConsistentRead: true }))).Item;
  }

  get readerClient(): DynamoDBDocumentClient {
    return this.reader;
  }

  get tables(): Record<TableName, string> {
    return this.options.tables;
  }

  destroy(): void {
    for (const container of this.containers) container.documentClient.destroy();
    this.reader.destroy();
  }
}
