/**
 * Least privilege, both ways: for every function of every configuration, the synthesized role
 * grants EXACTLY the (action, resource) pairs its code sends, nothing missing (an AccessDenied only
 * a real deployment would show) and nothing extra.
 *
 * The declared access below is the audit of each entry's code path (entry -> src/app/<function>.ts ->
 * handler -> core -> adapters), written independently of `lib/`: when the code starts sending a new
 * command, add it here and grant it in `lib/`; when it stops, remove both.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Stack } from 'aws-cdk-lib';
import { HandlerFunction } from '../../lib/constructs/handler-function.js';
import { catalog, findNotificationType, resourceNameOf } from '../../src/notifications/index.js';
import { grantsOf, logicalId, synthesize, type CfnTemplate, type Synthesized } from './synth.js';

/** Every function: its own log stream, and X-Ray active tracing (no resource-level permissions). */
const BASE = ['logs:CreateLogStream own-log-group', 'logs:PutLogEvents own-log-group', 'xray:PutTelemetryRecords *', 'xray:PutTraceSegments *'];
/** What the Lambda SQS poller needs on the queue it consumes (AWSLambdaSQSQueueExecutionRole's three actions). */
const consume = (queue: string) => ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'].map((action) => `${action} ${queue}`);
/** CreateSchedule in the app's group and PassRole of exactly the Scheduler target role. */
const SCHEDULE = ['scheduler:CreateSchedule schedule-group/*', 'iam:PassRole scheduler-target-role'];
/** Snooze: CreateSchedule of `snooze-*` schedules only, and PassRole of the snooze role (which sends to the urgent queue only). */
const SNOOZE_SCHEDULE = ['scheduler:CreateSchedule schedule-group/snooze-*', 'iam:PassRole snooze-target-role'];
/** PostToConnection on the app's WebSocket stage. */
const POST = ['execute-api:ManageConnections POST @connections/*'];
const on = (table: string, ...actions: string[]) => actions.map((action) => `dynamodb:${action} table:${table}`);

/**
 * The fan-out of one catalog type (FanOutService.process):
 * - a notifying type: mutes = BatchGetItem of preferences; `audience.followersOf` (any notifying
 *   type may carry one) = GetItem of PROFILE + Query of follower pages; inbox / feed writes =
 *   BatchWriteItem; a celebrity post's newest feed id = UpdateItem of PROFILE; delivery jobs to both priority queues (the event may override the priority).
 *   A type with audience `none` returns before any of it: no inbox write, no delivery queue.
 * - follow and unfollow, one set for both (either record may move or end the pair's follow run on a
 *   retry): UpdateItem of the follower item's history, count claim, count and tier; GetItem of PROFILE
 *   and of a pack chunk; BatchWriteItem of a celebrity's FOLLOWING_CELEBS item (UpdateItem of its pack
 *   chunk) or DeleteItem of it; a promotion job. A follow also Queries the followee's recent posts log.
 * - no graph effect: no follower count changes, so never a promotion job.
 * - every type: `sendAt` schedules, Powertools idempotency records (PutItem, GetItem, UpdateItem,
 *   DeleteItem when the work fails), delivery-trace records (BatchWriteItem), erasure tombstones (BatchGetItem).
 * - a notifying type (its events can be urgent) consumes its urgent intake lane too, and no other type's.
 * Written out here by hand (not from `fanOutQueueNeeds` or `intakeLanesOf`) so the test checks those derivations too.
 */
function fanOutAccess(detailType: string): string[] {
  const type = findNotificationType(detailType)!;
  const access = [...consume(`queue:intake:${detailType}`), ...SCHEDULE, ...on('Idempotency', 'PutItem', 'GetItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'BatchGetItem')];
  if (type.audience !== 'none') {
    // Inbox: item writes (BatchWriteItem), the author's recent posts log entry (PutItem) and the celebrity
    // posts count index slots (UpdateItem); a retry's probe of its first attempt's first write (BatchGetItem
    // of those items, Query of the recent posts log); Graph: the celebrity feed head (UpdateItem).
    access.push(...on('Inbox', 'BatchWriteItem', 'PutItem', 'UpdateItem', 'BatchGetItem', 'Query'), ...on('Graph', 'BatchGetItem', 'GetItem', 'Query', 'UpdateItem'));
    // An own item written late (a retry, a redrive, a follow's backfill): its marker beside the user's marks (BatchWriteItem).
    access.push(...on('ReadMarks', 'BatchWriteItem'));
    access.push('sqs:SendMessage queue:urgent', 'sqs:SendMessage queue:info');
    access.push(...consume(`queue:urgent-intake:${detailType}`));
  }
  // A follow backfills from the followee's recent posts log: Query of the Inbox table.
  if (type.graphEffect) access.push(...on('Graph', 'GetItem', 'UpdateItem', 'BatchWriteItem', 'DeleteItem'), 'sqs:SendMessage queue:promotion');
  if (type.graphEffect === 'follow') access.push(...on('Inbox', 'Query'));
  // An unfollow notifies nobody but traces the follower: BatchWriteItem on user trace partitions only.
  if (type.graphEffect && type.audience === 'none') access.push(...on('Inbox', 'BatchWriteItem'));
  // A retraction: one tenant-level record in the Inbox table (the puts of a notifying type).
  // Its `retracted` pushes: signed urgent jobs for the delivery function (no connection access).
  if (type.retraction) access.push(...on('Inbox', 'PutItem'), 'sqs:SendMessage queue:urgent');
  return access;
}

/** Delivery consumer (urgent or info): LiveDelivery, LiveDeliveryGate and HeldPushReleaser. */
function deliveryAccess(queue: 'urgent' | 'info'): string[] {
  return [
    ...consume(`queue:${queue}`),
    ...POST,
    ...SCHEDULE,
    // connectionsOf (BatchGetItem of presence), onlineSubscriberPages (Query), 410: removeConnection
    // = GetItem of the reverse item, presence UpdateItem, BatchWriteItem deletes.
    ...on('Connections', 'BatchGetItem', 'Query', 'GetItem', 'UpdateItem', 'BatchWriteItem'),
    // Preferences (quiet hours, per-type live delivery): BatchGetItem.
    ...on('Graph', 'BatchGetItem'),
    // Ledger claim (conditional PutItem) and release (DeleteItem); rate counters and holds (UpdateItem).
    ...on('Idempotency', 'PutItem', 'DeleteItem', 'UpdateItem'),
    // Celebrity posts: shard, next-page and put-back jobs onto its own queue (a job keeps its priority).
    `sqs:SendMessage queue:${queue}`,
    // Delivery trace records (one BatchWriteItem per stage per batch).
    ...on('Idempotency', 'BatchWriteItem'),
    // Erasure tombstones of the batch's recipients and authors (BatchGetItem).
    ...on('Idempotency', 'BatchGetItem'),
    // A released hold's notifications by id (BatchGetItem); the recipients' trace partitions (BatchWriteItem, LeadingKeys).
    ...on('Inbox', 'BatchGetItem', 'BatchWriteItem'),
    // A snooze comeback: the tenant's retractions (Query of that partition) before it is pushed.
    ...on('Inbox', 'Query'),
  ];
}

/**
 * The audit trail (when on): a recording function puts its batch's records to the Firehose stream,
 * asks KMS for tenant keys (GenerateMac), puts to the backlog queue when Firehose refuses, reads the
 * salts and tombstones (BatchGetItem; GetItem after a lost race) and creates salts (PutItem, of
 * `#AUDITSALT` keys only).
 */
const AUDIT = ['firehose:PutRecordBatch audit-stream', 'kms:GenerateMac audit-pseudonym-key', 'sqs:SendMessage queue:audit-backlog', ...on('Idempotency', 'BatchGetItem', 'GetItem', 'PutItem')];

/** Declared access per function (by construct id) for a configuration. */
function declaredAccess(fn: HandlerFunction, live: boolean, audit = false): string[] {
  const id = fn.node.id;
  const recording = audit ? AUDIT : [];
  if (id.startsWith('FanOut')) {
    const type = catalog.find((candidate) => `FanOut${resourceNameOf(candidate.detailType)}` === id);
    if (!type) throw new Error(`no catalog type for ${id}`);
    return [...BASE, ...fanOutAccess(type.detailType), ...recording];
  }
  const access: Record<string, () => string[]> = {
    // Verifies JWTs against the JWKS over HTTPS: no AWS call.
    Authorizer: () => [],
    // listFollowersPage (Query), putFollowedCelebrities (BatchWriteItem edges, UpdateItem pack chunks), next page job.
    // First page: PROFILE GetItem and the pending flip's UpdateItem, then follower pages; each page is read
    // again (BatchGetItem) to correct the entries a concurrent follow record made stale (DeleteItem of one).
    CelebrityPromotion: () => [...consume('queue:promotion'), ...on('Graph', 'Query', 'GetItem', 'BatchGetItem', 'BatchWriteItem', 'UpdateItem', 'DeleteItem'), 'sqs:SendMessage queue:promotion'],
    // listPage / counts: Query of inbox + feeds, read state, followed celebrities; muted types BatchGetItem.
    // A page that merges celebrity feeds: one BatchGetItem of the feed items the heads place in it (feed shards only).
    // Counts move the counts floor: UpdateItem of the marks item (that attribute only: stacks.test.ts).
    InboxRead: () => [...on('Inbox', 'Query', 'BatchGetItem'), ...on('ReadMarks', 'Query', 'GetItem', 'BatchGetItem', 'UpdateItem'), ...on('Graph', 'Query', 'BatchGetItem')],
    // Per-item actions: ONE BatchGetItem over Inbox (own item, celebrity posts log item), ReadMarks
    // (marks, exceptions) and Graph (followed pack), BatchGetItem of comebacks' snoozed items, Query of
    // the tenant's retractions; PutItem / BatchWriteItem of exceptions, UpdateItem naming ids unread below
    // the mark. Read-all / seen-all / archive-all-read: UpdateItem; a read-all behind the mark: GetItem and
    // one more UpdateItem. Live: read-state sync (ReadStateSync) = presence BatchGetItem, the marks and
    // counts (Queries, followed list Query, muted types BatchGetItem), PostToConnection, 410 cleanup.
    InboxWrite: () => [
      ...on('Inbox', 'BatchGetItem', 'Query'),
      // Bulk read: the READ# items go as BatchWriteItems of 25.
      ...on('ReadMarks', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'BatchWriteItem'),
      ...on('Graph', 'BatchGetItem'),
      // Snooze (a documented exception, docs/design-notes.md "How inbox state is stored"): the comeback copy into the caller's
      // own partition (one PutItem, user partitions only) and the schedule of its urgent job (signed with the snooze key).
      'dynamodb:PutItem table:Inbox',
      ...SNOOZE_SCHEDULE,
      // The comeback's schedule reference (schedule reference keys only).
      ...on('Idempotency', 'BatchWriteItem'),
      ...(live
        ? [
            ...on('ReadMarks', 'Query'),
            ...on('Graph', 'Query'),
            ...on('Connections', 'BatchGetItem', 'GetItem', 'UpdateItem', 'BatchWriteItem'),
            ...POST,
          ]
        : []),
    ],
    // getPreferences (BatchGetItem), putPreferences (PutItem).
    Preferences: () => on('Graph', 'BatchGetItem', 'PutItem'),
    // listFollowedCelebrities (Query), registerConnection (BatchWriteItem, presence UpdateItem).
    Connect: () => [...on('Graph', 'Query'), ...on('Connections', 'BatchWriteItem', 'UpdateItem')],
    // removeConnectionById: GetItem of the reverse item, presence UpdateItem, BatchWriteItem deletes.
    Disconnect: () => on('Connections', 'GetItem', 'UpdateItem', 'BatchWriteItem'),
    // Answers the caller through the management API.
    Default: () => POST,
    UrgentDelivery: () => [...deliveryAccess('urgent'), ...recording],
    InfoDelivery: () => [...deliveryAccess('info'), ...recording],
    // The audit backlog's drainer: consumes it, and records like any recorder (raw decisions sealed, segments put back).
    // The erase and export job (src/app/privacy-jobs.ts, user-eraser.ts, erasure-phases.ts, user-exporter.ts):
    // Query of the user's partitions and of the two sparse indexes under their id, BatchGetItem of keys computed
    // from them, BatchWriteItem deletes; a shared item's parts out under a guard (UpdateItem, GetItem when it fails);
    // a follow edge DeleteItem then the followee's count UpdateItem; the tombstone and checkpoint (GetItem,
    // conditional PutItem) and export job records (PutItem); the next step on its own queue; the user's device
    // endpoints (only with push configured), connections (DELETE, live only) and schedules; exports under exports/.
    PrivacyJob: () => [
      ...consume('queue:privacy'),
      'sqs:SendMessage queue:privacy',
      ...on('Inbox', 'Query', 'BatchGetItem', 'GetItem', 'BatchWriteItem', 'UpdateItem'),
      ...on('ReadMarks', 'Query', 'BatchWriteItem'),
      ...on('Connections', 'Query', 'BatchGetItem', 'GetItem', 'BatchWriteItem', 'UpdateItem'),
      ...on('Graph', 'Query', 'BatchGetItem', 'GetItem', 'BatchWriteItem', 'UpdateItem', 'DeleteItem'),
      // Tombstone, checkpoint and job records; the user's audit salt among their records (BatchGetItem).
      ...on('Idempotency', 'GetItem', 'BatchGetItem', 'PutItem', 'BatchWriteItem'),
      'dynamodb:Query index:Inbox/byAuthor',
      'dynamodb:Query index:Idempotency/byUser',
      'scheduler:DeleteSchedule schedule-group/*',
      's3:PutObject exports/*',
      's3:DeleteObject exports/*',
      's3:ListBucket export-bucket',
      ...(live ? ['execute-api:ManageConnections DELETE @connections/*'] : []),
    ],
    Drainer: () => [...consume('queue:audit-backlog'), ...AUDIT],
  };
  const declared = access[id];
  if (!declared) throw new Error(`no declared access for function ${fn.node.path}: audit its code path and add it`);
  return [...BASE, ...declared()];
}

/** Names a granted resource the way the declared access does; anything unknown stays raw (and fails). */
function resourceLabel(synth: Synthesized, fn: HandlerFunction, resource: unknown): string {
  if (resource === '*') return '*';
  const text = JSON.stringify(resource);
  const { pipeline, scheduling, live, privacyJobs } = synth.built.app;
  const index = /Tables(Inbox|ReadMarks|Connections|Graph|Idempotency)[0-9A-F]{8}[^]*\/index\/(\w+)"\]\]\}$/.exec(text);
  if (index) return `index:${index[1]}/${index[2]}`;
  const table = /Tables(Inbox|ReadMarks|Connections|Graph|Idempotency)[0-9A-F]{8}/.exec(text);
  if (table) return `table:${table[1]}`;
  const bucket = logicalId(privacyJobs.bucket);
  if (text === `{"Fn::GetAtt":["${bucket}","Arn"]}`) return 'export-bucket';
  if (text.includes(`"${bucket}","Arn"`) && text.endsWith('/exports/*"]]}')) return 'exports/*';
  if (live && text.includes(`{"Ref":"${logicalId(live.api)}"}`) && text.endsWith(`/${live.stage.stageName}/DELETE/@connections/*"]]}`)) return 'DELETE @connections/*';
  const queues = new Map<string, string>([
    [logicalId(pipeline.urgentDelivery.queue), 'queue:urgent'],
    [logicalId(pipeline.infoDelivery.queue), 'queue:info'],
    [logicalId(pipeline.promotion.queue.queue), 'queue:promotion'],
    [logicalId(privacyJobs.queue.queue), 'queue:privacy'],
    ...pipeline.types.map((type): [string, string] => [logicalId(type.intake.queue), `queue:intake:${type.detailType}`]),
    // The built-in catalog's urgent lanes are in this stack (notification-pipeline.ts, URGENT_LANES_INLINE).
    ...pipeline.types.flatMap((type): [string, string][] => (type.urgent ? [[logicalId(type.urgent.intake.queue), `queue:urgent-intake:${type.detailType}`]] : [])),
  ]);
  // The audit trail's stream and HMAC key live in the data stack (imports); its backlog queue here.
  if (/ExportsOutputFnGetAttAuditStream[0-9A-F]+Arn/.test(text)) return 'audit-stream';
  if (/ExportsOutputFnGetAttAuditPseudonymKey[0-9A-F]+Arn/.test(text)) return 'audit-pseudonym-key';
  const audit = synth.built.app.audit;
  if (audit) queues.set(logicalId(audit.backlog.queue), 'queue:audit-backlog');
  const getAtt = (resource as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt']?.[0];
  if (getAtt !== undefined && queues.has(getAtt)) return queues.get(getAtt)!;
  if (getAtt === logicalId(scheduling.role)) return 'scheduler-target-role';
  if (getAtt === logicalId(scheduling.snoozeRole)) return 'snooze-target-role';
  if (fn.logGroup && getAtt === logicalId(fn.logGroup.node.defaultChild as never)) return 'own-log-group';
  if (live && text.includes(`{"Ref":"${logicalId(live.api)}"}`) && text.endsWith(`/${live.stage.stageName}/POST/@connections/*"]]}`)) return 'POST @connections/*';
  const groupName = Stack.of(scheduling).resolve(scheduling.group.scheduleGroupName) as unknown;
  if (typeof groupName === 'string' && text.endsWith(`:schedule/${groupName}/*"]]}`)) return 'schedule-group/*';
  if (typeof groupName === 'string' && text.endsWith(`:schedule/${groupName}/snooze-*"]]}`)) return 'schedule-group/snooze-*';
  return text;
}

function grantedAccess(synth: Synthesized, template: CfnTemplate, fn: HandlerFunction): string[] {
  const granted: string[] = [];
  for (const [action, resources] of grantsOf(template, fn)) {
    for (const resource of resources) granted.push(`${action} ${resourceLabel(synth, fn, JSON.parse(resource))}`);
  }
  return granted;
}

const unique = (values: readonly string[]) => [...new Set(values)].sort();

function functionsOf(synth: Synthesized): HandlerFunction[] {
  return synth.built.app.node.findAll().filter((node): node is HandlerFunction => node instanceof HandlerFunction);
}

/** `functions`: one fan-out per catalog type + authorizer, promotion, 3 REST, the privacy job (+ 3 WebSocket routes and 2 delivery consumers when live). */
const configurations: [string, Record<string, unknown>, { live: boolean; functions: number; audit?: boolean }][] = [
  ['the defaults (cognito auth, live delivery)', {}, { live: true, functions: 11 + catalog.length }],
  [
    'jwt auth mode without an info batching window',
    { authMode: 'jwt', jwtIssuer: 'https://id.example.com/', jwtAudience: 'notifications-api', jwksUrl: 'https://id.example.com/.well-known/jwks.json', infoBatchWindowSeconds: '0' },
    { live: true, functions: 11 + catalog.length },
  ],
  [
    'LocalStack (jwt auth, liveDelivery=false)',
    { authMode: 'jwt', jwtIssuer: 'urn:serverless-notifications:local', jwtAudience: 'notifications', jwksUrl: 'http://host.docker.internal:4599/jwks.json', liveDelivery: 'false' },
    { live: false, functions: 6 + catalog.length },
  ],
  ['the audit trail on (auditRetentionDays)', { auditRetentionDays: '365' }, { live: true, functions: 12 + catalog.length, audit: true }],
];

describe.each(configurations)('When deployed with %s', (_name, context, expected) => {
  let synth: Synthesized;
  let template: CfnTemplate;
  beforeAll(() => {
    synth = synthesize(context, { bundle: false });
    template = synth.appJson;
  }, 120_000);

  it('builds the functions whose access is declared here', () => {
    expect(functionsOf(synth)).toHaveLength(expected.functions);
  });

  it('grants every function exactly the actions on exactly the resources its code uses (nothing missing, nothing extra)', () => {
    const mismatches: string[] = [];
    for (const fn of functionsOf(synth)) {
      const declared = unique(declaredAccess(fn, expected.live, expected.audit));
      const granted = unique(grantedAccess(synth, template, fn));
      const missing = declared.filter((entry) => !granted.includes(entry));
      const extra = granted.filter((entry) => !declared.includes(entry));
      if (missing.length > 0) mismatches.push(`${fn.node.path} MISSING: ${missing.join(', ')}`);
      if (extra.length > 0) mismatches.push(`${fn.node.path} EXTRA: ${extra.join(', ')}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('attaches no managed or inline policy to a function role: every grant is in the policies checked above', () => {
    for (const fn of functionsOf(synth)) {
      const role = template.Resources[logicalId(fn.executionRole)]!.Properties!;
      expect(role.ManagedPolicyArns).toBeUndefined();
      expect(role.Policies).toBeUndefined();
    }
  });

  it('gives the cursor-signing key only to the functions that sign or verify cursors', () => {
    const holders = functionsOf(synth)
      .filter((fn) => 'CURSOR_SECRET' in (template.Resources[logicalId(fn)]!.Properties!.Environment.Variables as object))
      .map((fn) => fn.node.id)
      .sort();
    expect(holders).toEqual(['InboxRead', 'InboxWrite']);
  });

  it('lets Scheduler assume the target role only for this account\'s schedule group (the ARN Scheduler passes as aws:SourceArn)', () => {
    const scheduling = synth.built.app.scheduling;
    const trust = template.Resources[logicalId(scheduling.role)]!.Properties!.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [logicalId(scheduling.group), 'Arn'] } },
        },
      },
    ]);
  });

  it('lets the Scheduler target role send to exactly the queues the code schedules to (intake for sendAt, urgent for releases) and its DLQ, all SSE-SQS (no KMS key to grant)', () => {
    const { scheduling, pipeline } = synth.built.app;
    const granted = grantsOf(template, { executionRole: scheduling.role } as unknown as HandlerFunction);
    expect([...granted.keys()]).toEqual(['sqs:SendMessage']);
    const targets = granted.get('sqs:SendMessage')!.map((resource) => (JSON.parse(resource) as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]).sort();
    expect(targets).toEqual([...pipeline.types.map((type) => type.intake.queue), pipeline.urgentDelivery.queue, scheduling.deadLetterQueue].map((queue) => logicalId(queue)).sort());
    for (const id of targets) {
      expect(template.Resources[id]!.Properties!.SqsManagedSseEnabled).toBe(true);
      expect(template.Resources[id]!.Properties!.KmsMasterKeyId).toBeUndefined();
    }
    // The targets the code passes: INTAKE_QUEUE_ARN (own intake) and RELEASE_QUEUE_ARN (urgent queue).
    for (const type of pipeline.types) {
      expect(template.Resources[logicalId(type.fanOut)]!.Properties!.Environment.Variables.INTAKE_QUEUE_ARN).toEqual({ 'Fn::GetAtt': [logicalId(type.intake.queue), 'Arn'] });
    }
    for (const fn of synth.built.app.live?.functions.filter((candidate) => candidate.handlerName === 'delivery') ?? []) {
      const variables = template.Resources[logicalId(fn)]!.Properties!.Environment.Variables;
      expect(variables.RELEASE_QUEUE_ARN).toEqual({ 'Fn::GetAtt': [logicalId(pipeline.urgentDelivery.queue), 'Arn'] });
      expect(variables.SCHEDULER_DLQ_ARN).toEqual({ 'Fn::GetAtt': [logicalId(scheduling.deadLetterQueue), 'Arn'] });
    }
  });

  it('lets the snooze role (the only role REST write may pass) send to the urgent queue and the Scheduler DLQ only, assumed by Scheduler for this group only', () => {
    const { scheduling, pipeline } = synth.built.app;
    const granted = grantsOf(template, { executionRole: scheduling.snoozeRole } as unknown as HandlerFunction);
    expect([...granted.keys()]).toEqual(['sqs:SendMessage']);
    const targets = granted.get('sqs:SendMessage')!.map((resource) => (JSON.parse(resource) as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]).sort();
    expect(targets).toEqual([pipeline.urgentDelivery.queue, scheduling.deadLetterQueue].map((queue) => logicalId(queue)).sort());
    const trust = template.Resources[logicalId(scheduling.snoozeRole)]!.Properties!.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual(template.Resources[logicalId(scheduling.role)]!.Properties!.AssumeRolePolicyDocument.Statement);
  });

  it('consumes each queue with partial batch responses and the batch settings its handler expects', () => {
    const { pipeline, live } = synth.built.app;
    const mappings = Object.values(template.Resources)
      .filter((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping')
      .map((resource) => resource.Properties!);
    const byQueue = new Map(mappings.filter((mapping) => !JSON.stringify(mapping.EventSourceArn).includes('"Outputs.')).map((mapping) => [mapping.EventSourceArn['Fn::GetAtt'][0] as string, mapping]));
    const expectMapping = (queueId: string, fnId: string, batchSize: number, window: number | undefined) => {
      const mapping = byQueue.get(queueId);
      expect(mapping, `event source of ${queueId}`).toBeDefined();
      expect(mapping!.FunctionName).toEqual({ Ref: fnId });
      expect(mapping!.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      expect(mapping!.BatchSize).toBe(batchSize);
      expect(mapping!.MaximumBatchingWindowInSeconds).toBe(window);
    };
    for (const type of pipeline.types) expectMapping(logicalId(type.intake.queue), logicalId(type.fanOut), 10, undefined);
    // The urgent lane: the same fan-out function, the same batch settings.
    const urgentLanes = pipeline.types.filter((type) => type.urgent !== undefined);
    for (const type of urgentLanes) expectMapping(logicalId(type.urgent!.intake.queue), logicalId(type.fanOut), 10, undefined);
    expectMapping(logicalId(pipeline.promotion.queue.queue), logicalId(pipeline.promotion.worker), 1, undefined);
    const window = synth.built.config.infoBatchWindowSeconds;
    if (live) {
      expectMapping(logicalId(pipeline.urgentDelivery.queue), logicalId(live.urgentDelivery), 10, undefined);
      expectMapping(logicalId(pipeline.infoDelivery.queue), logicalId(live.infoDelivery), window > 0 ? 100 : 10, window > 0 ? window : undefined);
    }
    expectMapping(logicalId(synth.built.app.privacyJobs.queue.queue), logicalId(synth.built.app.privacyJobs.worker), 1, undefined);
    const { audit } = synth.built.app;
    if (audit) expectMapping(logicalId(audit.backlog.queue), logicalId(audit.drainer), 10, undefined);
    expect(mappings).toHaveLength(pipeline.types.length + urgentLanes.length + 2 + (live ? 2 : 0) + (audit ? 1 : 0));
  });
});
