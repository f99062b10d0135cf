/**
 * A background PutEvents load for the live-delivery bench, run in a child process (a producer is
 * another service: its SDK signing and HTTP parsing should not run on the runtime's event loop). It
 * generates `rate` entries per second, paced by a timer that catches up on late ticks, and sends them
 * as calls of 10 through the producer's `putEntries` (throttled entries resent with full-jitter
 * backoff), with at most `maxInFlight` calls (their resends included) pending: entries generated
 * while that many are pending are not sent (the producer's own backlog). It counts entries
 * generated, sent a first time, accepted (by the time the answer came) and answered "retry".
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../src/local/embedded-dynamo.js';
import { putEntries } from '../src/producer/put-entries.js';

export interface LoadOptions {
  endpoint: string;
  busName: string;
  tenantId: string;
  /** Entries offered per second. */
  rate: number;
  maxInFlight: number;
  /** Recipients of the load's events (`${recipientPrefix}${n % recipients}`). */
  recipientPrefix: string;
  recipients: number;
  detailType: string;
  /** The events' priority (the envelope's override of the type's default), if any. */
  priority?: 'info' | 'urgent';
}

export interface LoadFigures {
  /** Seconds from the first tick to the stop. */
  seconds: number;
  /** Entries the timer generated (the offered rate times the seconds). */
  generated: number;
  /** Entries sent a first time. */
  sent: number;
  accepted: number;
  /** Per-entry ThrottlingException (or other retriable) answers, resends included. */
  throttled: number;
  /** Entries refused for good (past putEntries' attempts, or another error). */
  failed: number;
  /** Calls still pending (waiting to resend) at the stop. */
  pendingCalls: number;
  /** The first refusal's message, if any. */
  firstFailure?: string;
}

type FromParent = { type: 'stop' };
type FromChild = { type: 'started' } | { type: 'figures'; figures: LoadFigures };

const ENTRIES_PER_CALL = 10;
const TICK_MS = 20;

/** The child: offers the load until told to stop, then answers its figures. */
function runProducer(options: LoadOptions): void {
  const client = new EventBridgeClient({ endpoint: options.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const figures: LoadFigures = { seconds: 0, generated: 0, sent: 0, accepted: 0, throttled: 0, failed: 0, pendingCalls: 0 };
  const startedAt = performance.now();
  let inFlight = 0;
  let due = 0;
  let next = 0;
  const entry = (n: number): PutEventsRequestEntry => ({
    EventBusName: options.busName,
    Source: 'bench.load',
    DetailType: options.detailType,
    Detail: JSON.stringify({
      id: `load-${n}`,
      tenantId: options.tenantId,
      actor: { id: 'commenter', name: 'Commenter' },
      recipients: [`${options.recipientPrefix}${n % options.recipients}`],
      ...(options.priority ? { priority: options.priority } : {}),
      data: options.detailType === 'comment.created' ? { postId: `lpost-${n}`, commentId: `c-${n}`, excerpt: `load comment ${n}` } : { postId: `lpost-${n}`, excerpt: `load ${n}` },
    }),
  });
  const send = async (entries: PutEventsRequestEntry[]): Promise<void> => {
    inFlight += 1;
    let pending = entries.length;
    try {
      await putEntries(client, entries, {
        maxAttempts: 1_000,
        onRetry: (resent) => {
          figures.accepted += pending - resent;
          figures.throttled += resent;
          pending = resent;
        },
      });
      figures.accepted += pending;
    } catch (error) {
      figures.failed += pending;
      figures.firstFailure ??= String(error);
    } finally {
      inFlight -= 1;
    }
  };
  const tick = setInterval(() => {
    // Entries due by now at the rate; a late tick sends what the missed ones would have.
    due = Math.floor(((performance.now() - startedAt) / 1000) * options.rate);
    while (next + ENTRIES_PER_CALL <= due) {
      const first = next;
      next += ENTRIES_PER_CALL;
      figures.generated += ENTRIES_PER_CALL;
      // A producer with `maxInFlight` calls resending holds the rest back (its own backlog): not sent here, counted.
      if (inFlight >= options.maxInFlight) continue;
      figures.sent += ENTRIES_PER_CALL;
      void send(Array.from({ length: ENTRIES_PER_CALL }, (_, i) => entry(first + i)));
    }
  }, TICK_MS);
  process.send?.({ type: 'started' } satisfies FromChild);
  process.on('message', (message: FromParent) => {
    if (message.type !== 'stop') return;
    clearInterval(tick);
    figures.seconds = (performance.now() - startedAt) / 1000;
    figures.pendingCalls = inFlight;
    // The pending calls are abandoned (the runtime closes next): exit once the figures are sent.
    process.send?.({ type: 'figures', figures } satisfies FromChild, () => process.exit(0));
  });
}

export interface RunningLoad {
  /** Stops offering and answers the figures. */
  stop(): Promise<LoadFigures>;
}

/** Starts the load in a child process; answers once its timer runs. */
export async function startLoad(options: LoadOptions): Promise<RunningLoad> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const message = <T extends FromChild['type']>(type: T) =>
    new Promise<Extract<FromChild, { type: T }>>((resolve, reject) => {
      const onMessage = (received: FromChild) => {
        if (received.type !== type) return;
        child.off('message', onMessage);
        resolve(received as Extract<FromChild, { type: T }>);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`the load producer exited (code ${code}) before sending ${type}`)));
    });
  await message('started');
  return {
    async stop() {
      const figures = message('figures');
      child.send({ type: 'stop' } satisfies FromParent);
      return (await figures).figures;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) runProducer(JSON.parse(process.argv[2]!) as LoadOptions);
