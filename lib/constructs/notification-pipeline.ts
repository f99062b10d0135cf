import { Duration, NestedStack, Stack } from 'aws-cdk-lib';
import { EventBus, Rule, type EventPattern, type IEventBus } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Queue, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { fanOutQueueNeeds, type FanOutQueue } from '../../src/core/fanout/fanout-queues.js';
import { ENV, FAN_OUT_QUEUE_URL_ENV } from '../../src/env.js';
import { catalog, resourceNameOf } from '../../src/notifications/index.js';
import { intakeLanesOf, type EventPattern as LanePattern, type IntakeLaneSpec } from '../../src/notifications/intake-lanes.js';
import type { NotificationType } from '../../src/core/ports/notification-type.js';
import { acknowledge } from '../nag.js';
import { queueEncryption } from './data-protection.js';
import { HandlerFunction, type FunctionDefaults, type TableReadAction, type TableWriteAction } from './handler-function.js';
import { CELEBRITY_POSTS_INDEX_KEY_PATTERN, RETRACTIONS_KEY_PATTERN, USER_PARTITION_KEY_PATTERN, USER_TRACE_KEY_PATTERN } from '../../src/core/model/keys.js';
import type { InboxTables } from './inbox-tables.js';
import { QueueWithDlq } from './queue-with-dlq.js';

export interface NotificationPipelineProps {
  tables: InboxTables;
  defaults: FunctionDefaults;
  eventBusName: string;
  maxReceiveCount: number;
  celebrityThreshold: number;
  /** Timeout of the delivery consumers: the delivery queues' visibility timeout is 6x it. */
  deliveryConsumerTimeout: Duration;
  infoBatchWindowSeconds: number;
  /** HMAC key the fan-out signs delivery jobs with (delivery drops unsigned ones). */
  deliveryJobSecret: string;
  /** The notification types (default: the project catalog, `src/notifications/index.ts`). */
  catalog?: readonly NotificationType[];
  /** An existing bus (the host app's archive and policies apply); default a new bus with a 30-day archive. */
  eventBus?: IEventBus;
  /** Days the new bus's archive keeps raw events for replay (default 30). */
  archiveRetentionDays?: number;
}

export const DEFAULT_ARCHIVE_RETENTION_DAYS = 30;

/**
 * Types placed in the stack itself; later types go into nested stacks of `TYPES_PER_NESTED_STACK`
 * each, so a large catalog stays under CloudFormation's 500 resources per stack (a type is 10:
 * rule, intake queue and its policy, function, role, policy, log group, mapping, 2 alarms; the
 * intake DLQ is shared; a type whose events can be urgent adds 5 for its urgent lane: rule, queue,
 * policy, mapping, age alarm, so at most 15 x 25 = 375 per nested stack). The urgent lanes of the
 * first URGENT_LANES_INLINE types are in the stack itself (the built-in catalog: a stack without
 * nested stacks, which the deployed-mode local run and the least-privilege check read); those of
 * the other inline types are in a nested stack of their own, `UrgentLanes`, so the App stack gains
 * only their event source mappings (under 500 resources at 100 types). Placement depends on the
 * index alone, so a growing catalog never moves a lane (a moved queue would be replaced).
 * Placement follows catalog order: append new types at the end, or existing ones move (replaced).
 */
export const INLINE_TYPES = 20;
export const URGENT_LANES_INLINE = 6;
export const TYPES_PER_NESTED_STACK = 25;

/** Where the type at `index` of the catalog is built: the pipeline itself or nested stack `Types<n>`. */
export function typePlacement(index: number): { nestedStack?: number } {
  return index < INLINE_TYPES ? {} : { nestedStack: Math.floor((index - INLINE_TYPES) / TYPES_PER_NESTED_STACK) + 1 };
}

/** One notification type's path: rule -> intake queue (+DLQ) -> fan-out function, and the same for its urgent lane. */
export interface TypePipeline {
  readonly detailType: string;
  /** The standard lane: every event of the type but the urgent ones when it has an urgent lane. */
  readonly rule: Rule;
  readonly intake: QueueWithDlq;
  /** The urgent lane (a type whose events can be urgent): its own rule and queue, consumed by the same fan-out function. */
  readonly urgent?: { readonly rule: Rule; readonly intake: QueueWithDlq };
  readonly fanOut: HandlerFunction;
}

/** The CDK form of an intake lane's pattern (the JSON form's `detail-type` is `detailType` here). */
function cdkEventPattern(pattern: LanePattern): EventPattern {
  const { 'detail-type': detailType, ...rest } = pattern;
  const fields: Record<string, unknown> = { ...rest };
  if (detailType !== undefined) fields.detailType = detailType;
  return fields as EventPattern;
}

/** An urgent intake event older than this raises the lane's age alarm (as the urgent delivery queue's). */
const URGENT_INTAKE_MAX_AGE = Duration.minutes(1);

const FAN_OUT_TIMEOUT = Duration.minutes(2);

/** Item reads and writes a fan-out function sends to the Graph and Inbox tables. */
export interface FanOutTableAccess {
  inbox: readonly TableWriteAction[];
  /** Writes allowed only on the celebrity posts count index partitions (dynamodb:LeadingKeys). */
  inboxIndexUpdates: readonly TableWriteAction[];
  /** A retraction type's one write: its record in the tenant's retractions partition (dynamodb:LeadingKeys), nothing else of the inbox. */
  retractionPuts: readonly TableWriteAction[];
  /** A type that writes no inbox item but traces per user (a follow or unfollow, for the follower): user trace partitions only. */
  traceWrites: readonly TableWriteAction[];
  /** The markers of own items landed late (src/core/model/counts-floor.ts), beside the users' marks: BatchWriteItem puts. */
  lateArrivalMarkers: readonly TableWriteAction[];
  inboxReads: readonly TableReadAction[];
  graphReads: readonly TableReadAction[];
  graphWrites: readonly TableWriteAction[];
}

/**
 * What `FanOutService.process` can send for one catalog type (each type has its own function and
 * role, so a `mention.created` function cannot touch follow edges):
 * - a type that notifies (audience not `none`): mutes are one BatchGetItem of preferences per page,
 *   an `audience.followersOf` event (any notifying type may carry one) reads the PROFILE (GetItem)
 *   and pages the followers (Query); inbox and feed items are BatchWriteItem puts; an ordinary-tier
 *   post is logged in its author's recent posts log (PutItem on the Inbox table); a celebrity post's
 *   key goes into the count index slots (UpdateItem on the Inbox table); a retry probes whether its
 *   first attempt's first write landed (BatchGetItem of those items, or a Query of the recent posts log).
 * - `follow` and `unfollow` (src/core/fanout/follow-effect.ts): the follower item's history,
 *   holder and derived state (UpdateItem), PROFILE count claim, count and tier (UpdateItem),
 *   PROFILE GetItem when the count does not change; the pack of a (once) celebrity followee:
 *   BatchWriteItem of the FOLLOWING_CELEBS item and UpdateItem of the pack chunk, or chunk GetItem,
 *   UpdateItem (DELETE of the celebrity's elements) and DeleteItem of the FOLLOWING_CELEBS item (a
 *   follow run that moved or ended; either record may do either on a retry). A follow also
 *   Queries the followee's recent posts log (Inbox table) for the posts it backfills.
 */
export function fanOutTableAccess(type: Pick<NotificationType, 'audience' | 'graphEffect' | 'retraction'>): FanOutTableAccess {
  const notifies = type.audience !== 'none';
  const graphReads = new Set<TableReadAction>();
  const graphWrites = new Set<TableWriteAction>();
  if (notifies) for (const action of ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'] as const) graphReads.add(action);
  if (type.graphEffect) graphReads.add('dynamodb:GetItem');
  // A celebrity post moves the newest feed id on the PROFILE item (conditional UpdateItem).
  if (notifies) graphWrites.add('dynamodb:UpdateItem');
  if (type.graphEffect) for (const action of ['dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 'dynamodb:DeleteItem'] as const) graphWrites.add(action);
  return {
    // A celebrity post adds its key to the count index slots (UpdateItem, on those partitions only).
    inbox: notifies ? ['dynamodb:BatchWriteItem', 'dynamodb:PutItem'] : [],
    inboxIndexUpdates: notifies ? ['dynamodb:UpdateItem'] : [],
    // A retraction writes one tenant-level record (PutItem), in the retractions partition only.
    retractionPuts: type.retraction && !notifies ? ['dynamodb:PutItem'] : [],
    // A follow or unfollow's trace record, kept in the follower's trace partition of the Inbox table.
    traceWrites: type.graphEffect && !notifies ? ['dynamodb:BatchWriteItem'] : [],
    // An own item written late (a retry, a redrive, a follow's backfill) also puts its READL# marker in ReadMarks.
    lateArrivalMarkers: notifies ? ['dynamodb:BatchWriteItem'] : [],
    // A retried event probes whether its first attempt's first write landed (BatchGetItem of those
    // items; the author's recent posts log, a Query, for an ordinary-tier post); a follow backfills (Query).
    inboxReads: notifies ? ['dynamodb:BatchGetItem', 'dynamodb:Query'] : type.graphEffect === 'follow' ? ['dynamodb:Query'] : [],
    graphReads: [...graphReads],
    graphWrites: [...graphWrites],
  };
}

/**
 * The event side: the `notifications` bus with an archive for replay, one rule, intake queue and
 * fan-out function PER catalog type (a slow or failing type never delays another), and the two
 * priority delivery queues the fan-out functions feed.
 */
export class NotificationPipeline extends Construct {
  readonly bus: IEventBus;
  readonly types: readonly TypePipeline[];
  readonly urgentDelivery: QueueWithDlq;
  readonly infoDelivery: QueueWithDlq;
  /** Paged background job that writes FOLLOWING_CELEBS items when an account becomes a celebrity. */
  readonly promotion: { queue: QueueWithDlq; worker: HandlerFunction };
  /** Events EventBridge could not deliver to an intake queue (policy or quota errors). */
  readonly ruleDeadLetterQueue: Queue;
  /**
   * The dead-letter queue of every type's intake queue: one queue and one alarm instead of one per
   * type (a redrive returns each event to its own type's intake queue).
   */
  readonly intakeDeadLetterQueue: Queue;
  /** The dead-letter queue of every type's urgent intake lane (its own alarm: an urgent event failed). */
  readonly urgentIntakeDeadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: NotificationPipelineProps) {
    super(scope, id);
    const { tables, defaults } = props;

    if (props.eventBus) {
      this.bus = props.eventBus;
    } else {
      const bus = new EventBus(this, 'Bus', { eventBusName: props.eventBusName });
      bus.archive('Archive', {
        description: 'Every event published to the notifications bus, for replay after a fix',
        eventPattern: { account: [Stack.of(this).account] },
        retention: Duration.days(props.archiveRetentionDays ?? DEFAULT_ARCHIVE_RETENTION_DAYS),
      });
      this.bus = bus;
    }

    this.ruleDeadLetterQueue = new Queue(this, 'RuleTargetDlq', {
      ...queueEncryption(this),
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(this.ruleDeadLetterQueue, 'AwsSolutions-SQS3', 'This queue IS a dead-letter queue: EventBridge rule targets send events here when they cannot reach their intake queue.');
    this.intakeDeadLetterQueue = new Queue(this, 'IntakeDlq', {
      ...queueEncryption(this),
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(this.intakeDeadLetterQueue, 'AwsSolutions-SQS3', 'This queue IS a dead-letter queue: the intake queues of every notification type move events here after their last receive.');
    this.urgentIntakeDeadLetterQueue = new Queue(this, 'UrgentIntakeDlq', {
      ...queueEncryption(this),
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(this.urgentIntakeDeadLetterQueue, 'AwsSolutions-SQS3', 'This queue IS a dead-letter queue: the urgent intake queues of every notification type move events here after their last receive.');

    this.urgentDelivery = new QueueWithDlq(this, 'UrgentDelivery', {
      consumerTimeout: props.deliveryConsumerTimeout,
      maxReceiveCount: props.maxReceiveCount,
      maxMessageAge: Duration.minutes(1),
      purpose: 'urgent delivery jobs (pushed at once)',
    });
    this.infoDelivery = new QueueWithDlq(this, 'InfoDelivery', {
      consumerTimeout: props.deliveryConsumerTimeout,
      maxReceiveCount: props.maxReceiveCount,
      maxMessageAge: Duration.seconds(props.infoBatchWindowSeconds + 300),
      purpose: 'info delivery jobs (collapsed into digests per batching window)',
    });

    {
      const worker = new HandlerFunction(this, 'CelebrityPromotion', {
        handler: 'celebrity-promotion',
        serviceName: 'celebrity-promotion',
        description: 'Writes FOLLOWING_CELEBS items for one page of a new celebrity\'s followers, then queues the next page',
        defaults,
        timeout: Duration.minutes(2),
        memorySize: 512,
      });
      const queue = new QueueWithDlq(this, 'Promotion', {
        consumerTimeout: worker.timeout ?? Duration.minutes(2),
        maxReceiveCount: props.maxReceiveCount,
        maxMessageAge: Duration.minutes(30),
        purpose: 'celebrity promotion pages',
      });
      worker
        // First page: PROFILE GetItem and, if the flip is still pending, its conditional UpdateItem;
        // then one Query page of followers, BatchWriteItem of their FOLLOWING_CELEBS items and
        // UpdateItem of each follower's pack chunk; then a consistent BatchGetItem of those pairs
        // and, for one a follow or unfollow changed meanwhile, its chunk GetItem, UpdateItem and
        // the FOLLOWING_CELEBS item's DeleteItem (or BatchWriteItem).
        .readTable(tables.tables.graph, ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'])
        .writeTable(tables.tables.graph, ['dynamodb:BatchWriteItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
        .addEnvironment(ENV.CELEBRITY_THRESHOLD, String(props.celebrityThreshold))
        .sendTo(queue.queue, ENV.PROMOTION_QUEUE_URL)
        .consume(queue, { batchSize: 1 });
      this.promotion = { queue, worker };
    }

    const fanOutQueues: Record<FanOutQueue, IQueue> = { urgent: this.urgentDelivery.queue, info: this.infoDelivery.queue, promotion: this.promotion.queue.queue };
    const nestedStacks = new Map<number, NestedStack>();
    const scopeOf = (index: number): Construct => {
      const { nestedStack } = typePlacement(index);
      if (nestedStack === undefined) return this;
      let stack = nestedStacks.get(nestedStack);
      if (!stack) {
        stack = new NestedStack(this, `Types${nestedStack}`, { description: `Notification types ${INLINE_TYPES + (nestedStack - 1) * TYPES_PER_NESTED_STACK + 1} to ${INLINE_TYPES + nestedStack * TYPES_PER_NESTED_STACK}: rules, intake queues, fan-out functions` });
        nestedStacks.set(nestedStack, stack);
      }
      return stack;
    };
    let urgentLanes: NestedStack | undefined;
    const urgentScopeOf = (index: number): Construct =>
      typePlacement(index).nestedStack !== undefined
        ? scopeOf(index)
        : index < URGENT_LANES_INLINE
          ? this
          : (urgentLanes ??= new NestedStack(this, 'UrgentLanes', { description: `Urgent intake lanes of notification types ${URGENT_LANES_INLINE + 1} to ${INLINE_TYPES}: rules and queues (their types' fan-out functions consume them)` }));
    this.types = (props.catalog ?? catalog).map((type, index): TypePipeline => {
      const name = resourceNameOf(type.detailType);
      const scope = scopeOf(index);
      const fanOut = new HandlerFunction(scope, `FanOut${name}`, {
        handler: 'fanout',
        serviceName: `fanout-${type.detailType}`,
        description: `Fan-out of ${type.detailType} events: inbox writes (or celebrity feed), then delivery jobs`,
        defaults,
        timeout: FAN_OUT_TIMEOUT,
        memorySize: 1024,
        environment: {
          [ENV.NOTIFICATION_TYPE]: type.detailType,
          [ENV.CELEBRITY_THRESHOLD]: String(props.celebrityThreshold),
          [ENV.DELIVERY_JOB_SECRET]: props.deliveryJobSecret,
        },
      });
      // Each lane: a rule with the pattern the local bus evaluates too, into its own queue (same settings but the age alarm and the DLQ).
      const lane = (spec: IntakeLaneSpec) => {
        const urgent = spec.lane === 'urgent';
        const laneScope = urgent ? urgentScopeOf(index) : scope;
        const intake = new QueueWithDlq(laneScope, spec.queueName, {
          consumerTimeout: FAN_OUT_TIMEOUT,
          maxReceiveCount: props.maxReceiveCount,
          maxMessageAge: urgent ? URGENT_INTAKE_MAX_AGE : Duration.minutes(5),
          purpose: urgent ? `urgent ${type.detailType} events` : `${type.detailType} events`,
          sharedDeadLetterQueue: urgent ? this.urgentIntakeDeadLetterQueue : this.intakeDeadLetterQueue,
        });
        const rule = new Rule(laneScope, spec.ruleId, {
          eventBus: this.bus,
          description: urgent ? `urgent ${type.detailType} events to their urgent intake queue` : `${type.detailType} events to their intake queue`,
          eventPattern: cdkEventPattern(spec.pattern),
          targets: [new SqsQueue(intake.queue, { deadLetterQueue: this.ruleDeadLetterQueue, retryAttempts: 185, maxEventAge: Duration.hours(24) })],
        });
        return { rule, intake };
      };
      const lanes = intakeLanesOf(type);
      const { rule, intake } = lane(lanes.find((spec) => spec.lane === 'standard')!);
      const urgentSpec = lanes.find((spec) => spec.lane === 'urgent');
      const urgent = urgentSpec ? lane(urgentSpec) : undefined;
      // The standard rule (which now leaves urgent events out) is updated only once the urgent lane exists:
      // meanwhile both take urgent events, and the fan-out's idempotency key keeps that to one fan-out.
      if (urgent) rule.node.addDependency(urgent.rule);
      // Every table env var is read at cold start (src/app/config.ts, fanOutConfigFromEnv), so each is bound even
      // when this type sends nothing to it (an empty action list adds no statement).
      const access = fanOutTableAccess(type);
      fanOut
        // Inbox items are write-once: puts only, never update or delete.
        .writeTable(tables.tables.inbox, access.inbox)
        // ...except the count index slots of a celebrity post, updated in place (no other partition).
        .writeTableKeys(tables.tables.inbox, access.inboxIndexUpdates, [CELEBRITY_POSTS_INDEX_KEY_PATTERN])
        .writeTableKeys(tables.tables.inbox, access.retractionPuts, [RETRACTIONS_KEY_PATTERN])
        .writeTableKeys(tables.tables.inbox, access.traceWrites, [USER_TRACE_KEY_PATTERN])
        // User partitions only hold marks, exceptions and markers; IAM cannot narrow a write by sort key.
        .writeTableKeys(tables.tables.readMarks, access.lateArrivalMarkers, [USER_PARTITION_KEY_PATTERN])
        .readTable(tables.tables.inbox, access.inboxReads)
        .readTable(tables.tables.graph, access.graphReads)
        .writeTable(tables.tables.graph, access.graphWrites)
        // Powertools idempotency (DynamoDBPersistenceLayer): conditional PutItem of the INPROGRESS
        // record, GetItem of an existing one, UpdateItem to COMPLETED, DeleteItem when the work fails;
        // BatchWriteItem of the delivery-trace records; BatchGetItem of the erasure tombstones.
        .readTable(tables.tables.idempotency, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'])
        .writeTable(tables.tables.idempotency, ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']);
      // Exactly the queues this type can send to (URL + sqs:SendMessage), from the derivation the
      // function itself uses at cold start (src/app/fan-out.ts requires only these URLs).
      for (const queue of fanOutQueueNeeds(type)) fanOut.sendTo(fanOutQueues[queue], FAN_OUT_QUEUE_URL_ENV[queue]);
      fanOut.consume(intake, { batchSize: 10 });
      if (urgent) fanOut.consume(urgent.intake, { batchSize: 10 });
      // The target of this type's `sendAt` schedules: the event re-enters this same fan-out.
      fanOut.addEnvironment(ENV.INTAKE_QUEUE_ARN, intake.queue.queueArn);
      return { detailType: type.detailType, rule, intake, ...(urgent ? { urgent } : {}), fanOut };
    });
  }

  /** Every function of the pipeline. */
  get functions(): HandlerFunction[] {
    return [...this.types.map((type) => type.fanOut), this.promotion.worker];
  }
}
