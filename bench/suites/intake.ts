/**
 * Intake vs fan-out in the local runtime, in one run: how fast PutEvents accepts mentions, and how
 * many notifications per second the fan-out sustains writing them to inboxes (accept of the first
 * entry to the intake queue being empty), plus entries answered with a retriable per-entry error
 * (intake back-pressure) that the sender retried.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { performance as nodePerformance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { startLocalRuntime } from '../../src/local/runtime.js';
import { INTAKE_BACKLOG_LIMIT_DEFAULT, INTAKE_BACKLOG_SECONDS_DEFAULT, localSettingsFromEnv } from '../../src/local/settings.js';
import type { InstrumentableClient } from '../../src/app/parts.js';
import { percentile, round, type BenchResult, type BenchSuite } from '../harness.js';

/** Counts every SDK request (each HTTP attempt) by client, operation and table (the local table name's suffix: Inbox, Graph, Idempotency...). */
function callCounter() {
  const counts = new Map<string, number>();
  let lastCallMs = performance.now();
  type Stack = { add(middleware: (next: (args: { input?: Record<string, unknown> }) => Promise<unknown>, context: { clientName?: string; commandName?: string }) => (args: { input?: Record<string, unknown> }) => Promise<unknown>, options: { step: 'finalizeRequest'; priority: 'low'; name: string; override: true }): void };
  return {
    instrument(client: InstrumentableClient) {
      (client.middlewareStack as Stack).add(
        (next, context) => async (args) => {
          const input = args.input ?? {};
          const table = typeof input.TableName === 'string' ? input.TableName : input.RequestItems && typeof input.RequestItems === 'object' ? Object.keys(input.RequestItems).join('+') : '';
          const key = `${(context.clientName ?? '').replace(/Client$/, '')}.${(context.commandName ?? '').replace(/Command$/, '')}${table ? `.${table.split('+').map((name) => name.replace(/^.*-/, '')).join('+')}` : ''}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          lastCallMs = performance.now();
          return next(args);
        },
        // Once per HTTP attempt (after the SDK's retry middleware).
        { step: 'finalizeRequest', priority: 'low', name: 'benchCallCounter', override: true },
      );
    },
    byOperation: () => counts.entries(),
    total: () => [...counts.values()].reduce((sum, count) => sum + count, 0),
    lastCallMs: () => lastCallMs,
  };
}

const EVENTS = Number(process.env.BENCH_INTAKE_EVENTS ?? 3_000);
const RECIPIENTS_PER_EVENT = 2;
/** PutEvents calls in flight (10 entries each): a producer pushing as fast as the endpoint answers. */
const SENDERS = 8;
/** The badge poller: one user's `GET /notifications/counts`, one request at a time, this long apart. */
const COUNTS_INTERVAL_MS = 50;
/** A producer's wait before it resends throttled entries: exponential with full jitter, or the fixed 100 ms of earlier runs. */
const RETRY = process.env.BENCH_INTAKE_RETRY === 'fixed' ? 'fixed' : 'backoff';
const retryDelayMs = (attempt: number) => (RETRY === 'fixed' ? 100 : Math.random() * Math.min(1_600, 100 * 2 ** attempt));

/** Polls one recipient's counts over REST until `stop` resolves; answers each request's time. */
async function pollCounts(http: string, token: string, stop: Promise<void>): Promise<number[]> {
  const times: number[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  while (!stopped) {
    const started = performance.now();
    const response = await fetch(`${http}/notifications/counts`, { headers: { authorization: `Bearer ${token}` } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`counts answered ${response.status}`);
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, COUNTS_INTERVAL_MS));
  }
  return times;
}

function entryOf(index: number): PutEventsRequestEntry {
  const id = `bench-intake-${index}`;
  const recipients = Array.from({ length: RECIPIENTS_PER_EVENT }, (_, r) => `u${(index * RECIPIENTS_PER_EVENT + r) % 500}`);
  return {
    EventBusName: 'notifications',
    Source: 'bench.intake',
    DetailType: 'mention.created',
    Detail: JSON.stringify({ id, tenantId: 'bench', actor: { id: 'writer', name: 'Writer' }, recipients, data: { postId: `p-${index}`, excerpt: id } }),
  };
}

export const suite: BenchSuite = {
  id: 'intake',
  title: 'Local intake: accept rate vs sustained fan-out',
  method: `
${EVENTS} \`mention.created\` events (${RECIPIENTS_PER_EVENT} recipients each, no open sockets) sent with
${SENDERS} concurrent PutEvents calls of 10 entries against the in-process local runtime; entries
answered with a per-entry error are sent again after a backoff with full jitter, doubling from 100 ms to at most
1.6 s (\`BENCH_INTAKE_RETRY\`=\`fixed\`: after 100 ms each time, as this suite did before 2026-11-26). \`accepted\`
is entries per second until the last is accepted; \`fanOut\` is notifications written per second from
the first accept until the intake queue is empty (every fan-out batch finished). \`counts\` is the time of
\`GET /notifications/counts\` for one of the recipients (real HTTP with a token), polled one request at a
time every ${COUNTS_INTERVAL_MS} ms from the first send until the fan-out is done: the badge under load.
Back-pressure at its defaults (\`INTAKE_BACKLOG_SECONDS\` ${INTAKE_BACKLOG_SECONDS_DEFAULT}, \`INTAKE_BACKLOG_LIMIT\`
${INTAKE_BACKLOG_LIMIT_DEFAULT}): \`maxQueued\` is the intake queue's largest size, sampled every ${COUNTS_INTERVAL_MS} ms.
\`mainLoop.utilization\`: \`performance.eventLoopUtilization()\` (node:perf_hooks) of the process's main thread over the load (1 = never idle).
\`requests.perEvent\`: every AWS SDK request the runtime's clients sent (an SDK middleware, once per HTTP attempt), by
client, operation and table, per accepted event, until the urgent, info and push queues are empty and no call came for 2 s.
The fan-out's BatchWriteItem, BatchGetItem and SendMessageBatch of concurrent records share requests (coalescing clients, docs/operations.md).
`,
  async run(): Promise<BenchResult[]> {
    const dataDir = await mkdtemp(join(tmpdir(), 'bench-intake-'));
    const calls = callCounter();
    const runtime = await startLocalRuntime({ ...localSettingsFromEnv({ LOG_LEVEL: 'ERROR' }), port: 0, wsPort: 0, dataDir }, { instrument: calls.instrument });
    const client = new EventBridgeClient({ endpoint: runtime.endpoints.http, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
    // The bench's mentions carry no priority: urgent by the type's default, so they go to its urgent intake lane.
    const intake = runtime.queues.urgentIntake['mention.created']!;
    let stopPolling: (() => Promise<unknown>) | undefined;
    try {
      const entries = Array.from({ length: EVENTS }, (_, index) => entryOf(index));
      let next = 0;
      let throttled = 0;
      const requestFailures: string[] = [];
      let loadDone!: () => void;
      const counts = pollCounts(runtime.endpoints.http, await runtime.secrets.issueToken({ tenantId: 'bench', userId: 'u1' }), new Promise<void>((resolve) => (loadDone = resolve)));
      // A failure of the load below stops the poller before the runtime closes (else its next fetch, refused, hides the failure).
      stopPolling = () => {
        loadDone();
        return counts.catch(() => []);
      };
      let maxQueued = 0;
      const sampler = setInterval(() => (maxQueued = Math.max(maxQueued, intake.size)), COUNTS_INTERVAL_MS);
      const loopBefore = nodePerformance.eventLoopUtilization();
      const start = performance.now();
      await Promise.all(
        Array.from({ length: SENDERS }, async () => {
          while (next < entries.length) {
            let pending = entries.slice(next, next + 10);
            next += 10;
            for (let attempt = 0; pending.length > 0; attempt += 1) {
              let answer;
              try {
                answer = await client.send(new PutEventsCommand({ Entries: pending }));
              } catch (error) {
                // A whole request refused (a timeout, a 5xx): a producer resends it too; counted, and after 10 tries the run fails with it.
                requestFailures.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
                if (attempt >= 10) throw error;
                await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
                continue;
              }
              const failed = pending.filter((_, index) => answer.Entries?.[index]?.ErrorCode !== undefined);
              throttled += failed.length;
              pending = failed;
              if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
            }
          }
        }),
      );
      const acceptedMs = performance.now() - start;
      while (intake.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const fannedOutMs = performance.now() - start;
      clearInterval(sampler);
      const loop = nodePerformance.eventLoopUtilization(loopBefore);
      loadDone();
      const countTimes = await counts;
      const notifications = EVENTS * RECIPIENTS_PER_EVENT;
      // The AWS requests of the whole path (fan-out, delivery, push jobs): once their queues are empty and the calls stop.
      const queues = runtime.queues as unknown as Record<string, { size: number } | undefined>;
      const drainDeadline = performance.now() + 60_000;
      while (performance.now() < drainDeadline && (['urgent', 'info', 'push'].some((name) => (queues[name]?.size ?? 0) > 0) || performance.now() - calls.lastCallMs() < 2_000)) await new Promise((resolve) => setTimeout(resolve, 100));
      const perEvent = [...calls.byOperation()].sort((a, b) => b[1] - a[1]).filter(([, count]) => count / EVENTS >= 0.01);
      return [
        { name: 'intake.accepted.perSecond', value: round((EVENTS / acceptedMs) * 1000, 0), unit: 'events/s', note: `${EVENTS} events accepted in ${round(acceptedMs / 1000, 1)} s` },
        { name: 'intake.fanOut.perSecond', value: round((notifications / fannedOutMs) * 1000, 0), unit: 'notifications/s', note: `${notifications} inbox writes done ${round(fannedOutMs / 1000, 1)} s after the first accept` },
        { name: 'intake.backlogAfterAccept.seconds', value: round((fannedOutMs - acceptedMs) / 1000, 1), unit: 's', note: 'fan-out still running after the last accept' },
        { name: 'intake.maxQueued', value: maxQueued, unit: 'messages', note: 'largest intake backlog during the load' },
        { name: 'intake.mainLoop.utilization', value: round(loop.utilization, 2), unit: 'ratio', note: 'busy share of the main event loop during the load (REST, PutEvents, queues, consumers and the bench client share it)' },
        { name: 'intake.failedRequests', value: requestFailures.length, unit: 'requests', note: requestFailures.length === 0 ? 'PutEvents requests refused whole (resent): none' : `PutEvents requests refused whole and resent, first: ${requestFailures[0]}` },
        { name: 'intake.retriedEntries', value: throttled, unit: 'entries', note: 'answered with a retriable per-entry error (back-pressure) and sent again' },
        { name: 'intake.counts.ms.p50', value: round(percentile(countTimes, 50)), unit: 'ms', note: `GET /notifications/counts during the load; target <= 50; ${countTimes.length} requests` },
        { name: 'intake.counts.ms.p99', value: round(percentile(countTimes, 99)), unit: 'ms', note: 'target <= 250' },
        { name: 'intake.counts.ms.max', value: round(Math.max(...countTimes)), unit: 'ms' },
        { name: 'intake.requests.perEvent', value: round(calls.total() / EVENTS), unit: 'requests', note: `AWS SDK requests (HTTP attempts) the local runtime made per accepted event (mention to ${RECIPIENTS_PER_EVENT}) from the first send until the urgent, info and push queues were empty: fan-out, delivery, push jobs, and the badge poller's counts reads (Query Inbox / ReadMarks)` },
        ...perEvent.map(([operation, count]): BenchResult => ({ name: `intake.requests.perEvent.${operation}`, value: round(count / EVENTS), unit: 'requests' })),
      ];
    } finally {
      await stopPolling?.();
      client.destroy();
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
