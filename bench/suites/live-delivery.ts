/**
 * Live delivery: end-to-end latency of an urgent notification (PutEvents -> WebSocket message) on
 * the local runtime, idle and during a background PutEvents load (bench/load-producer.ts), and the
 * DynamoDB lookups delivery needs to find R recipients' connections (bench/delivery-lookups.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import WebSocket from 'ws';
import { MAX_RECIPIENTS_PER_JOB } from '../../src/core/jobs/delivery-job.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localTableNames } from '../../src/local/embedded-dynamo.js';
import { startLocalRuntime, type LocalRuntime } from '../../src/local/runtime.js';
import { putEntries } from '../../src/producer/put-entries.js';
import { localSettingsFromEnv } from '../../src/local/settings.js';
import type { LocalQueue } from '../../src/local/sqs/index.js';
import { percentile, round, type BenchResult, type BenchSuite } from '../harness.js';
import { measureLookups } from '../delivery-lookups.js';
import { startLoad, type LoadFigures, type LoadOptions } from '../load-producer.js';
import { StageTimeline, type Span } from '../stage-timeline.js';

const CLIENTS = 100;
const EVENTS = 1_000;
const WARMUP_EVENTS = 50;
const RECIPIENTS = 1_000;
const TENANT = 'bench';
const URGENT_TIMEOUT_MS = 20_000;
/** The background load: entries offered per second, calls of 10 pending at most, to this many users without a connection. */
const LOAD_RATE = 500;
const LOAD_MAX_IN_FLIGHT = 50;
const LOAD_RECIPIENTS = 1_000;
const LOAD_TYPE = 'comment.created';
/** The load runs this long before urgent events are timed (the throttle measures a drain rate), then this long with them. */
const LOAD_RAMP_MS = 3_000;
const LOAD_MS = 25_000;
/** The load of the urgent events' own type (info-priority mentions) runs this long with urgent events timed. */
const SAME_TYPE_LOAD_MS = 10_000;

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
  /** Urgent entries answered ThrottlingException (and resent; the time counts from the first send). */
  throttled: number;
  /** Urgent events not accepted and received within URGENT_TIMEOUT_MS of their first send (left out of the samples). */
  missed: number;
}

/** The first span of each stage of the urgent path in one event's window (of the spans `belongs` keeps). */
function stagesOf(spans: readonly Span[], sentAt: number, receivedAt: number, belongs: (span: Span) => boolean = () => true): Map<string, StageSample> {
  const found = new Map<string, StageSample>();
  for (const span of [...spans].sort((a, b) => a.startMs - b.startMs)) {
    if (span.startMs < sentAt || span.startMs > receivedAt || found.has(span.stage) || !belongs(span)) continue;
    // A call still running when the message arrived (a send waiting for its group commit) ends, for the path, with the message.
    const endMs = Number.isNaN(span.endMs) ? receivedAt : Math.min(span.endMs, receivedAt);
    found.set(span.stage, { atMs: span.startMs - sentAt, ms: endMs - span.startMs });
  }
  return found;
}

/** Stages whose calls name nothing of the event (hashed keys): under load they cannot be told from the load's. */
const UNATTRIBUTABLE_UNDER_LOAD = new Set(['idempotency record', 'erasure check']);
/** Stages the load never reaches (its info events go to users without a connection): every such call is the urgent event's. */
const URGENT_ONLY = new Set(['job enqueue', 'claim', 'post']);

/** Under load: a call is the urgent event's when it is one of its own stages or its input names the event, its post or its recipient. */
function belongsTo(tokens: readonly string[]): (span: Span) => boolean {
  return (span) => {
    if (span.input === undefined || URGENT_ONLY.has(span.stage)) return true;
    if (UNATTRIBUTABLE_UNDER_LOAD.has(span.stage)) return false;
    const text = JSON.stringify(span.input);
    return tokens.some((token) => text.includes(token));
  };
}

const userId = (i: number) => `user${String(i % CLIENTS).padStart(3, '0')}`;

interface LivePath {
  runtime: LocalRuntime;
  events: EventBridgeClient;
  timeline: StageTimeline;
  waiters: Map<string, Waiter>;
}

/**
 * One urgent mention to `userId(i)`, timed from its first PutEvents to the client's message; undefined
 * when not accepted and received within URGENT_TIMEOUT_MS of the first send.
 */
async function publishUrgent(path: LivePath, id: string, i: number, underLoad: boolean): Promise<{ ms?: number; stages: Map<string, StageSample>; throttled: number }> {
  const postId = `post-${id}`;
  const recipient = userId(i);
  const received = new Promise<number>((resolve) => path.waiters.set(postId, { resolve }));
  const detail = { id: `evt-${id}`, tenantId: TENANT, actor: { id: 'author', name: 'Author' }, recipients: [recipient], data: { postId, excerpt: `mention ${id}` } };
  let throttled = 0;
  path.timeline.take();
  const sentAt = performance.now();
  let timer: ReturnType<typeof globalThis.setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), URGENT_TIMEOUT_MS)));
  const entry = { EventBusName: path.runtime.endpoints.eventBusName, Source: 'bench', DetailType: 'mention.created', Detail: JSON.stringify(detail) };
  const sent = putEntries(path.events, [entry], { maxAttempts: 1_000, onRetry: (entries) => (throttled += entries) }).then(
    () => (path.timeline.note('intake', sentAt, performance.now()), true),
    () => false,
  );
  const receivedAt = (await Promise.race([sent, late])) ? await Promise.race([received, late]) : undefined;
  clearTimeout(timer);
  path.waiters.delete(postId);
  const spans = path.timeline.take();
  if (receivedAt === undefined) return { stages: new Map(), throttled };
  return { ms: receivedAt - sentAt, stages: stagesOf(spans, sentAt, receivedAt, underLoad ? belongsTo([`evt-${id}"`, `${postId}"`, `#U#${recipient}`]) : undefined), throttled };
}

/** Publishes urgent events one at a time while `more()` says so (after `warmup` untimed ones) and collects their figures. */
async function urgentPhase(path: LivePath, label: string, warmup: number, more: (timed: number) => boolean, underLoad: boolean): Promise<UrgentFigures> {
  const figures: UrgentFigures = { samples: [], stages: new Map(STAGES.map(([stage]) => [stage, []])), throttled: 0, missed: 0 };
  for (let i = 0; i < warmup || more(figures.samples.length + figures.missed); i += 1) {
    const result = await publishUrgent(path, `${label}${i}`, i, underLoad);
    if (result.ms === undefined && !underLoad) throw new Error(`urgent event ${label}${i} not accepted and received in ${URGENT_TIMEOUT_MS} ms`);
    if (i < warmup) continue;
    figures.throttled += result.throttled;
    if (result.ms === undefined) {
      figures.missed += 1;
      continue;
    }
    figures.samples.push(result.ms);
    for (const [stage, sample] of result.stages) figures.stages.get(stage)?.push(sample);
  }
  return figures;
}

interface LoadPhase {
  urgent: UrgentFigures;
  load: LoadFigures;
}

/** Urgent events timed for `ms` while the background load runs (started LOAD_RAMP_MS before). */
async function underLoad(path: LivePath, label: string, events: Pick<LoadOptions, 'detailType' | 'priority'>, ms: number): Promise<LoadPhase> {
  const { runtime } = path;
  const load = await startLoad({ endpoint: runtime.endpoints.events, busName: runtime.endpoints.eventBusName, tenantId: TENANT, rate: LOAD_RATE, maxInFlight: LOAD_MAX_IN_FLIGHT, recipientPrefix: 'reader', recipients: LOAD_RECIPIENTS, ...events });
  try {
    await new Promise((resolve) => setTimeout(resolve, LOAD_RAMP_MS));
    const until = performance.now() + ms;
    const urgent = await urgentPhase(path, label, 0, () => performance.now() < until, true);
    return { urgent, load: await load.stop() };
  } catch (error) {
    await load.stop().catch(() => undefined);
    throw error;
  }
}

/** Waits until the queue holds nothing (the previous phase's accepted load fanned out). */
async function drained(queue: LocalQueue): Promise<void> {
  for (const deadline = performance.now() + 120_000; queue.size > 0; ) {
    if (performance.now() > deadline) throw new Error(`the intake queue still holds ${queue.size} messages after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** PutEvents -> message received, one urgent event at a time, over CLIENTS connected users: idle, during a load of another type, during a load of the same type. */
async function measureUrgentLatency(): Promise<{ idle: UrgentFigures; loaded: LoadPhase; sameType: LoadPhase; loadAverageIdle: number; loadAverage: number }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-live-'));
  const timeline = new StageTimeline(localTableNames());
  const runtime = await startLocalRuntime({ ...localSettingsFromEnv({}), port: 0, wsPort: 0, dataDir }, { instrument: timeline.instrument });
  const events = new EventBridgeClient({ endpoint: runtime.endpoints.events, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const path: LivePath = { runtime, events, timeline, waiters: new Map() };
  const sockets: WebSocket[] = [];
  try {
    for (let i = 0; i < CLIENTS; i += 1) {
      const token = await runtime.secrets.issueToken({ tenantId: TENANT, userId: userId(i) });
      const socket = new WebSocket(`${runtime.endpoints.ws}?token=${token}`);
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      socket.on('message', (data) => {
        const receivedAt = performance.now();
        const message = JSON.parse(data.toString()) as { type: string; notification?: { data: { postId?: string } } };
        const postId = message.notification?.data.postId;
        if (message.type === 'notification' && postId) path.waiters.get(postId)?.resolve(receivedAt);
      });
      sockets.push(socket);
    }
    const idle = await urgentPhase(path, 'idle-', WARMUP_EVENTS, (timed) => timed < EVENTS, false);
    const loadAverageIdle = loadavg()[0]!;
    const loaded = await underLoad(path, 'load-', { detailType: LOAD_TYPE }, LOAD_MS);
    const loadAverage = loadavg()[0]!;
    await drained(runtime.queues.intake[LOAD_TYPE]!);
    const sameType = await underLoad(path, 'same-', { detailType: 'mention.created', priority: 'info' }, SAME_TYPE_LOAD_MS);
    return { idle, loaded, sameType, loadAverageIdle, loadAverage };
  } finally {
    for (const socket of sockets) socket.terminate();
    events.destroy();
    await runtime.close();
    await rm(dataDir, { recursive: true, force: true });
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

**Under load** (\`e2e.urgent.load.*\`): right after the idle run, on the same runtime and clients, a
background producer in a child process (\`bench/load-producer.ts\`: a producer is another service, so its
SDK work is not on the runtime's event loop, but it shares the 2 cores) generates ${LOAD_RATE} \`${LOAD_TYPE}\`
events per second (info priority, one recipient each among ${LOAD_RECIPIENTS} users without a connection),
paced by a timer, sent as PutEvents calls of 10 with the real \`@aws-sdk/client-eventbridge\` through the
producer's \`putEntries\` (\`src/producer/put-entries.ts\`: entries answered ThrottlingException by the
local intake's back-pressure are resent with full-jitter backoff). At most ${LOAD_MAX_IN_FLIGHT} calls are
pending (in flight or waiting to resend); entries generated while that many are pending are held back
and counted: \`offered\` is what the timer generated per second, \`sent\` what was sent a first time,
\`accepted\` the entries the intake took, \`answered-retry\` every ThrottlingException answer (resends
included). After ${LOAD_RAMP_MS / 1000} s of load (the throttle measures a drain rate), urgent mentions are
published one at a time for ${LOAD_MS / 1000} s exactly as in the idle run, also through \`putEntries\`: an
urgent entry refused by the back-pressure is resent and its time counts from its first send
(\`e2e.urgent.load.throttled\` counts such refusals; an event not accepted and received within
${URGENT_TIMEOUT_MS / 1000} s of its first send is counted as missed, not timed). The per-stage table under load attributes a call to the urgent event when its input
names the event, its post or its recipient (the load's events name other ids and users), or when the
stage is one the load never reaches (urgent job enqueue, claim, post: the load is info priority to users
without a connection). The idempotency record and the erasure check are keyed by hashes that name
nothing of the event, so under load they cannot be told from the load's and are left out.

**Under a load of the same type** (\`e2e.urgent.same-type-load.*\`): once the first load's accepted events
are fanned out, the same producer sends \`mention.created\` events with priority \`info\` (the envelope's
override) for ${LOAD_RAMP_MS / 1000} + ${SAME_TYPE_LOAD_MS / 1000} s while urgent mentions are timed as above. The
info mentions go to the type's standard intake lane and the urgent ones to its urgent lane (their own
queue, throttled on their own backlog: src/notifications/intake-lanes.ts, intake-throttle.ts); both lanes
are fanned out by the same consumer, on the one event loop the load also uses.
An urgent event not accepted and received within ${URGENT_TIMEOUT_MS / 1000} s counts as ${URGENT_TIMEOUT_MS / 1000} s in
these percentiles (a lower bound). \`fanout-start\` is when the urgent event's fan-out writes its arrival
stamp, from its first send: its wait in its lane and for the shared event loop.

**Lookups** (\`delivery.lookups.r${RECIPIENTS}\`): ${RECIPIENTS} recipients with one connection each, in
${RECIPIENTS / MAX_RECIPIENTS_PER_JOB} jobs of ${MAX_RECIPIENTS_PER_JOB} delivered as one queue batch; counted
by the RequestMeter SDK middleware: BatchGetItem calls of presence items (target ceil(R/100)). The baseline
finds the same connections with one Query per recipient partition. The claims (one conditional PutItem per
(notification, connection)) are reported separately in \`delivery.requests.r${RECIPIENTS}\`.
`,
  async run(): Promise<BenchResult[]> {
    const lookups = await measureLookups(RECIPIENTS, TENANT);
    const { idle, loaded: { urgent: loaded, load }, sameType, loadAverageIdle, loadAverage } = await measureUrgentLatency();
    // The machine is shared; the load during the run explains the tail better than the code does.
    const machine = (loadAverage: number, when: string) => `1-min load average ${loadAverage.toFixed(1)} on ${cpus().length} cores ${when}`;
    const budget = (figures: UrgentFigures, prefix: string, underLoad: boolean) =>
      STAGES.filter(([stage]) => !underLoad || !UNATTRIBUTABLE_UNDER_LOAD.has(stage)).map(([stage, what]): BenchResult => {
        const found = figures.stages.get(stage) ?? [];
        const at = percentile(found.map((sample) => sample.atMs), 50);
        return {
          name: `${prefix}.stage.${stage.replace(/ /g, '-')}.ms.p50`,
          value: round(percentile(found.map((sample) => sample.ms), 50)),
          unit: 'ms',
          note: `${underLoad ? '' : `${what}; `}starts at +${round(at, 1)} ms (P50); seen in ${found.length} of ${figures.samples.length} events`,
        };
      });
    const perSecond = (entries: number, figures = load) => round(entries / figures.seconds, 0);
    const same = sameType.urgent;
    const sameTimes = [...same.samples, ...Array.from({ length: same.missed }, () => URGENT_TIMEOUT_MS)];
    const fanoutStarts = same.stages.get('arrival stamp')?.map((sample) => sample.atMs) ?? [];
    return [
      { name: 'e2e.urgent.ms.p50', value: round(percentile(idle.samples, 50)), unit: 'ms', note: `target <= 15; ${idle.samples.length} events, ${CLIENTS} clients` },
      { name: 'e2e.urgent.ms.p95', value: round(percentile(idle.samples, 95)), unit: 'ms', note: 'target <= 30' },
      { name: 'e2e.urgent.ms.p99', value: round(percentile(idle.samples, 99)), unit: 'ms', note: `target <= 40; ${machine(loadAverageIdle, 'at the end of the idle phase')}` },
      { name: 'e2e.urgent.ms.max', value: round(Math.max(...idle.samples)), unit: 'ms' },
      ...budget(idle, 'e2e.urgent', false),
      { name: 'e2e.urgent.load.ms.p50', value: round(percentile(loaded.samples, 50)), unit: 'ms', note: `target <= 40; ${loaded.samples.length} events during the load, ${loaded.missed} not accepted and received in ${URGENT_TIMEOUT_MS / 1000} s` },
      { name: 'e2e.urgent.load.ms.p95', value: round(percentile(loaded.samples, 95)), unit: 'ms', note: 'target <= 80' },
      { name: 'e2e.urgent.load.ms.p99', value: round(percentile(loaded.samples, 99)), unit: 'ms', note: `target <= 120; ${machine(loadAverage, 'at the end of the load phase')}` },
      { name: 'e2e.urgent.load.ms.max', value: round(Math.max(...loaded.samples)), unit: 'ms' },
      { name: 'e2e.urgent.load.throttled', value: loaded.throttled, unit: 'entries', note: 'urgent entries answered ThrottlingException during the load (resent; timed from the first send)' },
      { name: 'e2e.urgent.load.offered', value: perSecond(load.generated), unit: 'events/s', note: `target ${LOAD_RATE}; ${load.generated} ${LOAD_TYPE} entries generated in ${round(load.seconds, 1)} s` },
      { name: 'e2e.urgent.load.sent', value: perSecond(load.sent), unit: 'events/s', note: `sent a first time; ${load.generated - load.sent} held back while ${LOAD_MAX_IN_FLIGHT} calls were resending` },
      { name: 'e2e.urgent.load.accepted', value: perSecond(load.accepted), unit: 'events/s', note: `${load.accepted} entries accepted; ${load.pendingCalls} calls still resending at the stop, ${load.failed} refused for good${load.firstFailure ? ` (first: ${load.firstFailure})` : ''}` },
      { name: 'e2e.urgent.load.answered-retry', value: load.throttled, unit: 'entries', note: 'load entries answered ThrottlingException (each resend counted)' },
      ...budget(loaded, 'e2e.urgent.load', true),
      { name: 'e2e.urgent.same-type-load.ms.p50', value: round(percentile(sameTimes, 50)), unit: 'ms', note: `${same.samples.length + same.missed} events in ${SAME_TYPE_LOAD_MS / 1000} s, ${same.missed} not accepted and received in ${URGENT_TIMEOUT_MS / 1000} s (counted as ${URGENT_TIMEOUT_MS} ms, a lower bound); the load: mention.created with priority info` },
      { name: 'e2e.urgent.same-type-load.ms.max', value: round(Math.max(...sameTimes)), unit: 'ms', note: same.missed > 0 ? 'a lower bound (an event missed)' : undefined },
      ...(fanoutStarts.length > 0
        ? [{ name: 'e2e.urgent.same-type-load.fanout-start.ms.p50', value: round(percentile(fanoutStarts, 50)), unit: 'ms', note: `the urgent event's arrival stamp starts this long after its first send (its wait in the urgent intake lane, and for the event loop the load shares); ${fanoutStarts.length} events` }]
        : []),
      { name: 'e2e.urgent.same-type-load.throttled', value: same.throttled, unit: 'entries', note: 'urgent entries answered ThrottlingException (resent; timed from the first send)' },
      { name: 'e2e.urgent.same-type-load.accepted', value: perSecond(sameType.load.accepted, sameType.load), unit: 'events/s', note: `of ${perSecond(sameType.load.generated, sameType.load)} offered; ${sameType.load.throttled} load entries answered ThrottlingException` },
      { name: `delivery.lookups.r${RECIPIENTS}`, value: lookups.batchGets, unit: 'requests', note: `BatchGetItem of presence; target ceil(R/100) = ${Math.ceil(RECIPIENTS / 100)}` },
      { name: `delivery.lookups.r${RECIPIENTS}.baseline`, value: lookups.baselineQueries, unit: 'requests', note: 'one Query per recipient' },
      { name: `delivery.requests.r${RECIPIENTS}`, value: lookups.allRequests, unit: 'requests', note: `all DynamoDB requests of the delivery, incl. ${lookups.messages} claims (one per pushed connection)` },
    ];
  },
};
