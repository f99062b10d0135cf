/**
 * The local stand-in for EventBridge Scheduler, behind the same port: one-time schedules persisted
 * as JSON under the data directory (so they survive a restart), fired by timers re-armed on start,
 * delivered to a local queue by ARN, deleted after a successful delivery (ActionAfterCompletion
 * DELETE), retried with backoff when the target refuses.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { OneTimeSchedule, ScheduleOutcome, Scheduler } from '../../core/ports/scheduler.js';

/** Delivers a fired schedule's payload to its target (a local queue found by ARN), as the schedule's role when it names one. */
export type ScheduleTargetDispatcher = (targetArn: string, payload: string, roleArn?: string) => Promise<void>;

/** A schedule as the Scheduler API creates it: the role Scheduler assumes to deliver it, in its group. */
export interface ApiSchedule extends OneTimeSchedule {
  groupName: string;
  roleArn: string;
}

interface StoredSchedule extends OneTimeSchedule {
  groupName?: string;
  roleArn?: string;
  createdAt: string;
  /** Failed delivery attempts so far. */
  attempts: number;
}

/** Node timers take at most 2^31-1 ms; longer waits are re-armed in steps. */
const MAX_TIMER_MS = 2_147_483_647;
const MAX_RETRY_DELAY_MS = 60_000;

export interface LocalSchedulerOptions {
  /** Directory of `schedules.json` (created if missing). */
  dir: string;
  logger: Logger;
  nowMs?: () => number;
}

export class LocalScheduler implements Scheduler {
  private readonly schedules = new Map<string, StoredSchedule>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private dispatch: ScheduleTargetDispatcher | undefined;
  private persisting: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(private readonly options: LocalSchedulerOptions) {}

  private get file(): string {
    return join(this.options.dir, 'schedules.json');
  }

  private now(): number {
    return this.options.nowMs?.() ?? Date.now();
  }

  /** Loads the persisted schedules; none fires until `start`. */
  static async open(options: LocalSchedulerOptions): Promise<LocalScheduler> {
    const scheduler = new LocalScheduler(options);
    await mkdir(options.dir, { recursive: true });
    try {
      const stored = JSON.parse(await readFile(scheduler.file, 'utf8')) as StoredSchedule[];
      for (const schedule of stored) scheduler.schedules.set(schedule.name, schedule);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return scheduler;
  }

  /** Arms every loaded schedule (overdue ones fire at once) and every one created from now on. */
  start(dispatch: ScheduleTargetDispatcher): void {
    this.dispatch = dispatch;
    for (const schedule of this.schedules.values()) this.arm(schedule);
  }

  /** Persists before answering, so a schedule acknowledged here survives a crash or restart. */
  async scheduleOnce(schedule: OneTimeSchedule | ApiSchedule): Promise<ScheduleOutcome> {
    if (this.schedules.has(schedule.name)) return 'already_scheduled';
    const stored: StoredSchedule = { ...schedule, createdAt: new Date(this.now()).toISOString(), attempts: 0 };
    this.schedules.set(schedule.name, stored);
    await this.persist();
    this.arm(stored);
    return 'created';
  }

  /** Re-arms every pending schedule against the clock, after a test moved it (due ones fire at once). */
  rearm(): void {
    for (const schedule of this.schedules.values()) this.arm(schedule);
  }

  /** The pending schedules (tests, diagnostics). */
  list(): OneTimeSchedule[] {
    return [...this.schedules.values()].map(({ name, atMs, targetArn, payload }) => ({ name, atMs, targetArn, payload }));
  }

  /** One pending schedule with its group and role (the Scheduler API's GetSchedule). */
  get(name: string): (OneTimeSchedule & { groupName?: string; roleArn?: string }) | undefined {
    const stored = this.schedules.get(name);
    if (!stored) return undefined;
    const { attempts: _attempts, createdAt: _createdAt, ...schedule } = stored;
    return schedule;
  }

  /** DeleteSchedule: disarms and forgets a pending schedule (user erasure); true when it existed. */
  async delete(name: string): Promise<boolean> {
    if (!this.schedules.delete(name)) return false;
    const timer = this.timers.get(name);
    if (timer) clearTimeout(timer);
    this.timers.delete(name);
    await this.persist();
    return true;
  }

  /** Stops the timers and waits for deliveries under way; pending schedules stay on disk. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
    await this.persisting;
  }

  private arm(schedule: StoredSchedule, delayOverrideMs?: number): void {
    if (this.closed || !this.dispatch) return;
    const existing = this.timers.get(schedule.name);
    if (existing) clearTimeout(existing);
    const delay = Math.max(0, delayOverrideMs ?? schedule.atMs - this.now());
    const timer = setTimeout(() => {
      this.timers.delete(schedule.name);
      // A wait longer than one timer (or a timer a hair early) is re-armed, not fired.
      if (delayOverrideMs === undefined && schedule.atMs > this.now()) return this.arm(schedule);
      const firing = this.fire(schedule).finally(() => this.inFlight.delete(firing));
      this.inFlight.add(firing);
    }, Math.min(delay, MAX_TIMER_MS));
    timer.unref?.();
    this.timers.set(schedule.name, timer);
  }

  private async fire(schedule: StoredSchedule): Promise<void> {
    try {
      await this.dispatch!(schedule.targetArn, schedule.payload, schedule.roleArn);
    } catch (error) {
      schedule.attempts += 1;
      const retryMs = Math.min(MAX_RETRY_DELAY_MS, 500 * 2 ** Math.min(schedule.attempts, 10));
      this.options.logger.warn('local schedule delivery failed, retrying', { schedule: schedule.name, attempts: schedule.attempts, retryMs, error: error as Error });
      await this.persist();
      this.arm(schedule, retryMs);
      return;
    }
    this.schedules.delete(schedule.name);
    await this.persist();
  }

  /** Whole-file atomic rewrite (temp file + rename), one at a time. */
  private persist(): Promise<void> {
    const next = this.persisting.then(async () => {
      const temporary = `${this.file}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify([...this.schedules.values()], null, 2));
      await rename(temporary, this.file);
    });
    this.persisting = next.catch(() => undefined);
    return next;
  }
}
