/**
 * Live delivery: end-to-end latency of an urgent notification (PutEvents -> WebSocket message) on
 * the local runtime, and the DynamoDB lookups delivery needs to find R recipients' connections.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import WebSocket from 'ws';
import { ConnectionRepository } from '../../src/adapters/dynamo/connection-repository.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { DynamoDeliveryLedger } from '../../src/adapters/dynamo/delivery-ledger.js';
import { RequestMeter } from '../../src/adapters/dynamo/request-meter.js';
import { MAX_RECIPIENTS_PER_JOB, type DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { notificationId } from '../../src/core/model/ids.js';
import { connectionIdFromSortKey, keys } from '../../src/core/model/keys.js';
import { LiveDelivery } from '../../src/core/live/live-delivery.js';
import type { ConnectionDirectory, ConnectionTarget } from '../../src/core/ports/live.js';
import type { UserRef } from '../../src/core/model/user.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localTableNames, startEmbeddedDynamo } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime } from '../../src/local/runtime.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import { percentile, round, type BenchResult, type BenchSuite } from '../harness.js';
import { StageTimeline, type Span } from '../stage-timeline.js';

const CLIENTS = 100;
const EVENTS = 1_000;
const WARMUP_EVENTS = 50;
const RECIPIENTS = 1_000;
const TENANT = 'bench';

interface Waiter {
  resolve(receivedAt: number): void;
}

/**
 * The urgent path's stages in order, as the timeline names the AWS calls that make them (the first
 * call of each stage after the PutEvents; calls of other work running meanwhile are left out).
 */
const STAGES = [
  ['intake', 'PutEvents answered (validated, journaled, group-committed)'],
  ['idempotency record', 'fan-out: Powertools idempotency record (INPROGRESS)'],
  ['erasure check', 'fan-out: erasure tombstones of actor and recipients'],
  ['arrival stamp', 'fan-out: the event\'s arrival stamp (conditional put)'],
  ['inbox write', 'fan-out: the inbox item (BatchWriteItem)'],
  ['job enqueue', 'fan-out: the signed urgent job (SendMessageBatch, answered after the group commit)'],
  ['delivery lookup', 'delivery: presence BatchGetItem (with the erasure check beside it)'],
  ['rate limit', 'delivery gate: the per-user rate counter (UpdateItem)'],
  ['claim', 'delivery: the (notification, connection) claim (conditional put)'],
  ['post', 'delivery: PostToConnection through the management API'],
] as const;

interface StageSample {
  /** When the stage's call started, from just before PutEvents was sent. */
  atMs: number;
  ms: number;
}

interface UrgentFigures {
  samples: number[];
  stages: Map<string, StageSample[]>;
}

/** The first span of each stage of the urgent path in one event's window. */
function stagesOf(spans: readonly Span[], sentAt: number, receivedAt: number): Map<string, StageSample> {
  const found = new Map<string, StageSample>();
  for (const span of [...spans].sort((a, b) => a.startMs - b.startMs)) {
    if (span.startMs < sentAt || span.startMs > receivedAt || found.has(span.stage)) continue;
    // A call still running when the message arrived (a send waiting for its group commit) ends, for the path, with the message.
    const endMs = Number.isNaN(span.endMs) ? receivedAt : Math.min(span.endMs, receivedAt);
    found.set(span.stage, { atMs: span.startMs - sentAt, ms: endMs - span.startMs });
  }
  return found;
}

/** PutEvents -> message received, one event at a time, over CLIENTS connected users; each AWS call of the path timed. */
async function measureUrgentLatency(): Promise<UrgentFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-live-'));
  const timeline = new StageTimeline(localTableNames());
  const runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir }, { instrument: timeline.instrument });
  const events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const waiters = new Map<string, Waiter>();
  const sockets: WebSocket[] = [];
  try {
    for (let i = 0; i < CLIENTS; i += 1) {
      const token = await runtime.secrets.issueToken({ tenantId: TENANT, userId: `user${i}` });
      const socket = new WebSocket(`${runtime.endpoints.ws}?token=${token}`);
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      socket.on('message', (data) => {
        const receivedAt = performance.now();
        const message = JSON.parse(data.toString()) as { type: string; notification?: { data: { postId?: string } } };
        const postId = message.notification?.data.postId;
        if (message.type === 'notification' && postId) waiters.get(postId)?.resolve(receivedAt);
      });
      sockets.push(socket);
    }
    const samples: number[] = [];
    const stages = new Map<string, StageSample[]>(STAGES.map(([stage]) => [stage, []]));
    for (let i = 0; i < WARMUP_EVENTS + EVENTS; i += 1) {
      const postId = `post-${i}`;
      const received = new Promise<number>((resolve) => waiters.set(postId, { resolve }));
      const detail = { id: `evt-${i}`, tenantId: TENANT, actor: { id: 'author', name: 'Author' }, recipients: [`user${i % CLIENTS}`], data: { postId, excerpt: `mention ${i}` } };
      timeline.take();
      const sentAt = performance.now();
      await events.send(new PutEventsCommand({ Entries: [{ EventBusName: runtime.endpoints.eventBusName, Source: 'bench', DetailType: 'mention.created', Detail: JSON.stringify(detail) }] }));
      timeline.note('intake', sentAt, performance.now());
      const receivedAt = await Promise.race([received, new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`event ${i} not received in 10 s`)), 10_000))]);
      waiters.delete(postId);
      if (i < WARMUP_EVENTS) continue;
      samples.push(receivedAt - sentAt);
      for (const [stage, sample] of stagesOf(timeline.take(), sentAt, receivedAt)) stages.get(stage)?.push(sample);
    }
    return { samples, stages };
  } finally {
    for (const socket of sockets) socket.terminate();
    events.destroy();
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The baseline: one Query of each recipient's partition (`C#` items) instead of batched presence reads. */
class PerUserQueryDirectory implements Pick<ConnectionDirectory, 'connectionsOf'> {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async connectionsOf(users: readonly UserRef[]): Promise<ConnectionTarget[]> {
    const results = await Promise.all(
      users.map(async (user) => {
        const output = await this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': keys.presence(user.tenantId, user.userId).pk, ':prefix': 'C#' },
          }),
        );
        return (output.Items ?? []).flatMap((item) => {
          const connectionId = connectionIdFromSortKey(item.sk as string);
          return connectionId ? [{ ...user, connectionId }] : [];
        });
      }),
    );
    return results.flat();
  }
}

interface LookupFigures {
  batchGets: number;
  allRequests: number;
  baselineQueries: number;
  messages: number;
}

/** R recipients (each with one connection) in jobs of 100, delivered as one queue batch. */
async function measureLookups(): Promise<LookupFigures> {
  const dynamo = await startEmbeddedDynamo();
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const meter = new RequestMeter();
  meter.attach(client);
  try {
    const connections = new ConnectionRepository(client, dynamo.tableNames.connections);
    const users = Array.from({ length: RECIPIENTS }, (_, i): UserRef => ({ tenantId: TENANT, userId: `r${i}` }));
    for (let i = 0; i < users.length; i += 50) {
      await Promise.all(users.slice(i, i + 50).map((user, j) => connections.registerConnection({ ...user, connectionId: `conn${i + j}AAAAAA=`, celebrityIds: [] })));
    }
    const timeMs = Date.now();
    const jobs: DeliveryJob[] = [];
    for (let i = 0; i < users.length; i += MAX_RECIPIENTS_PER_JOB) {
      jobs.push({
        v: 1,
        tenantId: TENANT,
        eventId: 'evt-lookups',
        priority: 'urgent',
        notification: { type: 'mention.created', createdAt: new Date(timeMs).toISOString(), actor: { id: 'author' }, title: 't', body: 'b', data: {} },
        target: {
          kind: 'recipients',
          recipients: users.slice(i, i + MAX_RECIPIENTS_PER_JOB).map((user) => ({ userId: user.userId, notificationId: notificationId({ tenantId: TENANT, type: 'mention.created', eventId: 'evt-lookups', recipient: user.userId, timeMs }) })),
        },
      });
    }
    let messages = 0;
    const delivery = new LiveDelivery({
      directory: connections,
      ledger: new DynamoDeliveryLedger(client, dynamo.tableNames.idempotency),
      pusher: { post: async () => ((messages += 1), 'sent') },
      isDigestible: () => false,
    });
    meter.reset();
    await delivery.deliver(jobs.map((job, i) => ({ recordId: `record-${i}`, job })), 'urgent');
    const withPresence = meter.snapshot();

    meter.reset();
    const baseline = new PerUserQueryDirectory(client, dynamo.tableNames.connections);
    for (const job of jobs) {
      if (job.target.kind === 'recipients') await baseline.connectionsOf(job.target.recipients.map((recipient) => ({ tenantId: TENANT, userId: recipient.userId })));
    }
    const baselineFigures = meter.snapshot();
    return {
      batchGets: withPresence.byCommand.BatchGetItemCommand ?? 0,
      allRequests: withPresence.requests,
      baselineQueries: baselineFigures.byCommand.QueryCommand ?? 0,
      messages,
    };
  } finally {
    client.destroy();
    await dynamo.close();
  }
}

export const suite: BenchSuite = {
  id: 'live-delivery',
  title: 'Live delivery over WebSocket',
  method: `
**Latency** (\`e2e.urgent.ms.*\`): the local runtime in-process (dynalite, local EventBridge, local SQS
queues, local API Gateway WebSocket + \`@connections\`), ${CLIENTS} connected \`ws\` clients (one per user).
${EVENTS} \`mention.created\` events (after ${WARMUP_EVENTS} warm-up events), published one at a time with the
real \`@aws-sdk/client-eventbridge\` \`PutEventsCommand\`, each to one of the users in turn; the time is from
just before \`send\` to the client's \`message\` event. The path: PutEvents -> intake queue -> fan-out
(inbox BatchWrite, delivery job) -> urgent queue -> delivery (presence BatchGetItem, conditional
(notification, connection) claim, \`PostToConnection\` through the real management API client) -> socket.
Client and runtime share one Node process and the machine's cores, so this is an upper bound.

**Latency budget** (\`e2e.urgent.stage.*\`): an SDK middleware on every client of the runtime's functions
(\`bench/stage-timeline.ts\`, passed as the runtime's \`instrument\` option) times each AWS call and names
the stage it serves from its table, key kind or queue; per event, the first call of each stage is taken,
and the table gives each stage's P50 duration and P50 start after the PutEvents was sent. The starts show
where the time goes between stages (queue hops, handler CPU, the event loop) and which stages overlap
(the fan-out starts before PutEvents is answered: a message is visible once written, its sender is
answered after the group commit; the erasure checks run beside the idempotency record and the lookup).

**Lookups** (\`delivery.lookups.r${RECIPIENTS}\`): ${RECIPIENTS} recipients with one connection each, in
${RECIPIENTS / MAX_RECIPIENTS_PER_JOB} jobs of ${MAX_RECIPIENTS_PER_JOB} delivered as one queue batch; counted
by the RequestMeter SDK middleware: BatchGetItem calls of presence items (target ceil(R/100)). The baseline
finds the same connections with one Query per recipient partition. The claims (one conditional PutItem per
(notification, connection)) are reported separately in \`delivery.requests.r${RECIPIENTS}\`.
`,
  async run(): Promise<BenchResult[]> {
    const lookups = await measureLookups();
    const { samples, stages } = await measureUrgentLatency();
    // The machine is shared; the load during the run explains the tail better than the code does.
    const load = `1-min load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores at the end of the run`;
    const p50 = percentile(samples, 50);
    const budget = STAGES.map(([stage, what]): BenchResult => {
      const found = stages.get(stage) ?? [];
      const at = percentile(found.map((sample) => sample.atMs), 50);
      return {
        name: `e2e.urgent.stage.${stage.replace(/ /g, '-')}.ms.p50`,
        value: round(percentile(found.map((sample) => sample.ms), 50)),
        unit: 'ms',
        note: `${what}; starts at +${round(at, 1)} ms (P50); seen in ${found.length} of ${samples.length} events`,
      };
    });
    return [
      { name: 'e2e.urgent.ms.p50', value: round(p50), unit: 'ms', note: `target <= 15; ${samples.length} events, ${CLIENTS} clients` },
      { name: 'e2e.urgent.ms.p95', value: round(percentile(samples, 95)), unit: 'ms', note: 'target <= 30' },
      { name: 'e2e.urgent.ms.p99', value: round(percentile(samples, 99)), unit: 'ms', note: `target <= 40; ${load}` },
      { name: 'e2e.urgent.ms.max', value: round(Math.max(...samples)), unit: 'ms' },
      ...budget,
      { name: `delivery.lookups.r${RECIPIENTS}`, value: lookups.batchGets, unit: 'requests', note: `BatchGetItem of presence; target ceil(R/100) = ${Math.ceil(RECIPIENTS / 100)}` },
      { name: `delivery.lookups.r${RECIPIENTS}.baseline`, value: lookups.baselineQueries, unit: 'requests', note: 'one Query per recipient' },
      { name: `delivery.requests.r${RECIPIENTS}`, value: lookups.allRequests, unit: 'requests', note: `all DynamoDB requests of the delivery, incl. ${lookups.messages} claims (one per pushed connection)` },
    ];
  },
};
