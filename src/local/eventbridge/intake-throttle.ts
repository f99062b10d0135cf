/**
 * Early intake back-pressure for the local PutEvents: how many more entries an intake queue takes
 * now. A queue may hold what its consumer drains in `maxBacklogSeconds` at the drain rate measured
 * over the last few seconds (messages deleted or dead-lettered), and no entry is taken while the
 * oldest message no consumer has received yet has waited longer than that; `floorMessages` are
 * always taken (so a slow consumer always has work), `coldMessages` before a rate is measured (a
 * burst from idle: the first second of calls after an idle window), and `maxMessages` never exceeded.
 * So a producer that resends throttled entries with backoff holds the backlog to seconds, whatever
 * the machine's fan-out rate, instead of a fixed count that is minutes on a slow machine.
 *
 * Unlike AWS: PutEvents throttles on a request-rate quota per account and region and the intake
 * queue holds any backlog; locally the whole pipeline shares one machine, so the bus throttles on
 * the backlog of the queue the entry goes to (docs/local-runtime.md).
 */

/** What the throttle reads of an intake queue (LocalQueue). */
export interface DrainingQueue {
  /** Messages stored, visible or not. */
  readonly size: number;
  /** Messages removed so far (deleted by the consumer or moved to the DLQ). */
  readonly drainedCount: number;
  /** When the oldest message that no consumer has received yet was sent (undefined: none waits). */
  oldestWaitingSentAt(): number | undefined;
}

export interface IntakeThrottleOptions {
  /** Backlog allowed, in seconds of the measured drain rate and of the oldest waiting message's age (0: only `maxMessages`). */
  maxBacklogSeconds: number;
  /** Messages a queue may hold at most (0: no cap). */
  maxMessages: number;
  /** Messages always taken whatever the rate and age. Default 100. */
  floorMessages?: number;
  /** Messages taken before a drain rate is measured (a burst from idle). Default 500. */
  coldMessages?: number;
  now?: () => number;
}

export interface IntakeRoom {
  /** Entries the queue takes now. */
  room: number;
  /** Why not more: for the throttled entries' ErrorMessage. */
  reason: string;
}

/** The drain rate is measured over this much history, sampled at most this often. */
const RATE_WINDOW_MS = 5_000;
const SAMPLE_EVERY_MS = 250;
/** Less history than this is not a rate yet (the floor applies). */
const MIN_RATE_SPAN_MS = 1_000;
export const INTAKE_FLOOR_MESSAGES_DEFAULT = 100;
export const INTAKE_COLD_MESSAGES_DEFAULT = 500;

interface Sample {
  at: number;
  drained: number;
}

export class IntakeThrottle {
  private readonly samples = new Map<DrainingQueue, Sample[]>();
  private readonly floor: number;
  private readonly cold: number;
  private readonly now: () => number;

  constructor(private readonly options: IntakeThrottleOptions) {
    this.floor = options.floorMessages ?? INTAKE_FLOOR_MESSAGES_DEFAULT;
    this.cold = Math.max(this.floor, options.coldMessages ?? INTAKE_COLD_MESSAGES_DEFAULT);
    this.now = options.now ?? Date.now;
  }

  /** Messages per second the queue's consumer drained over the last few seconds; undefined before a second of history. */
  drainRate(queue: DrainingQueue): number | undefined {
    const now = this.now();
    let samples = this.samples.get(queue) ?? [];
    const last = samples[samples.length - 1];
    // After an idle gap (no call for a whole window), what drained meanwhile says nothing of the rate now: measure afresh.
    if (last && now - last.at > RATE_WINDOW_MS) samples = [];
    if (samples.length === 0 || now - samples[samples.length - 1]!.at >= SAMPLE_EVERY_MS) samples.push({ at: now, drained: queue.drainedCount });
    while (samples.length > 2 && now - samples[1]!.at >= RATE_WINDOW_MS) samples.shift();
    this.samples.set(queue, samples);
    const first = samples[0]!;
    const span = now - first.at;
    return span < MIN_RATE_SPAN_MS ? undefined : ((queue.drainedCount - first.drained) * 1000) / span;
  }

  room(queue: DrainingQueue): IntakeRoom {
    const { maxBacklogSeconds: seconds, maxMessages } = this.options;
    const size = queue.size;
    const cap = maxMessages > 0 ? maxMessages : Number.POSITIVE_INFINITY;
    const capped = { room: Math.max(0, cap - size), reason: `the intake queue holds ${size} messages (local limit ${maxMessages} messages)` };
    if (seconds <= 0) return capped;
    const rate = this.drainRate(queue);
    const limits = `local limit ${seconds} s${maxMessages > 0 ? `, at most ${maxMessages} messages` : ''}`;
    const oldest = queue.oldestWaitingSentAt();
    const waitedMs = oldest === undefined ? 0 : this.now() - oldest;
    if (waitedMs > seconds * 1000 && size >= Math.min(cap, this.floor)) {
      return { room: 0, reason: `the oldest waiting message of the intake queue has waited ${(waitedMs / 1000).toFixed(1)} s (${size} messages; ${limits})` };
    }
    const byRate = rate === undefined ? this.cold : Math.max(this.floor, Math.floor(rate * seconds));
    if (byRate >= cap) return capped;
    const drain = rate === undefined ? 'no drain rate measured yet' : `its consumer drains ${rate.toFixed(1)} messages/s`;
    return { room: Math.max(0, byRate - size), reason: `the intake queue holds ${size} messages, ${seconds} s or more of backlog (${drain}; ${limits})` };
  }
}
