/**
 * One generated sequence: the reference model and the system side by side. Every step that processes
 * records observes what the store recorded (arrival stamps, how a post was fanned out) and then
 * compares every user's view with the model (`checks.ts`); `drain` ends a sequence by processing
 * what is left without faults, and the final checks add the graph (follower counts, tiers, packs)
 * and the trace.
 */
import type fc from 'fast-check';
import { notificationId } from '../../../src/core/model/ids.js';
import { keys } from '../../../src/core/model/keys.js';
import { feedRecipient, recentPostsRecipient } from '../../../src/core/model/recipient-ids.js';
import { FollowModel, type ModelEvent, type RecordKind } from './reference-model.js';
import { FollowGraphSystem, type QueuedMessage, type SystemOptions } from './system.js';
import { checkFinal, checkViews } from './checks.js';

const TYPE_OF: Record<RecordKind, 'follow.created' | 'follow.deleted' | 'post.published'> = { follow: 'follow.created', unfollow: 'follow.deleted', post: 'post.published' };

export interface StepRun {
  message: QueuedMessage;
  killAt?: number;
}

export class SequenceRun {
  readonly model: FollowModel;
  readonly system: FollowGraphSystem;
  /** What happened, one line per step (printed with a failure). */
  readonly log: string[] = [];
  private events = 0;
  readonly startedAtMs: number;
  readonly threshold: number;

  constructor(options: SystemOptions) {
    this.model = new FollowModel(options.users);
    this.system = new FollowGraphSystem(options);
    this.startedAtMs = this.system.clock.nowMs();
    this.threshold = options.celebrityThreshold;
  }

  get users(): readonly string[] {
    return this.model.users;
  }

  publish(kind: RecordKind, actor: string, followee: string | undefined, gapMs: number): ModelEvent {
    this.system.clock.advance(gapMs);
    this.events += 1;
    const eventId = `e${this.events}`;
    const message = this.system.publish(TYPE_OF[kind], eventId, actor, followee);
    this.log.push(`t=${this.at()} publish ${kind} ${eventId} ${actor}${followee !== undefined ? ` -> ${followee}` : ''}`);
    return this.model.publish({ eventId, kind, actor, ...(followee !== undefined ? { followee } : {}), copies: [message.sentMs] });
  }

  /** The producer publishes the same event again: a new message, a new SentTimestamp. */
  republish(event: ModelEvent, gapMs: number): void {
    this.system.clock.advance(gapMs);
    const message = this.system.publish(TYPE_OF[event.kind], event.eventId, event.actor, event.followee);
    event.copies.push(message.sentMs);
    this.log.push(`t=${this.at()} republish ${event.eventId}`);
  }

  redeliver(message: QueuedMessage): void {
    this.system.redeliver(message);
    this.log.push(`t=${this.at()} redeliver ${this.describe(message)}`);
  }

  /** Processes one receive of each run (several: concurrently under `scheduler`), then checks every view. */
  async process(runs: readonly StepRun[], gapMs: number, scheduler?: fc.Scheduler): Promise<void> {
    this.system.clock.advance(gapMs);
    const processedBefore = new Set([...this.model.events.values()].filter((event) => event.status === 'done').map((event) => event.eventId));
    const touched = new Set<string>();
    for (const { message } of runs) {
      const event = message.eventId !== undefined ? this.model.events.get(message.eventId) : undefined;
      if (!event) continue;
      touched.add(event.eventId);
      event.attemptedCopies.add(message.sentMs);
      if (event.status === 'pending') event.status = 'started';
    }
    const expectedBefore = this.expectedViews();
    this.system.takeTouched();
    const outcomes = scheduler && runs.length > 1 ? await this.system.processTogether(runs, scheduler) : [await this.system.process(runs[0]!.message, runs[0]!.killAt)];
    runs.forEach(({ message, killAt }, index) =>
      this.log.push(`t=${this.at()} process ${this.describe(message)}${killAt !== undefined ? ` kill@${killAt}` : ''}${runs.length > 1 ? ' (together)' : ''}: ${outcomes[index]}`),
    );
    for (const [index, { message }] of runs.entries()) {
      const event = message.eventId !== undefined ? this.model.events.get(message.eventId) : undefined;
      if (event && outcomes[index] === 'done') event.status = 'done';
    }
    for (const eventId of touched) await this.observe(this.model.events.get(eventId)!);
    this.model.noteStep(touched, processedBefore);
    this.refreshPromotions();
    // A user whose partitions the step did not write and whose expected view did not change has the view the last check saw.
    const written = this.system.takeTouched();
    const expectedAfter = this.expectedViews();
    await checkViews(this, this.users.filter((user) => written === 'all' || written.has(user) || expectedAfter.get(user) !== expectedBefore.get(user)));
  }

  /** Every user's expected view, as a string per user (to tell whether a step changed it). */
  private expectedViews(): Map<string, string> {
    return new Map(this.users.map((user) => {
      const { must, may } = this.model.expectedView(user);
      return [user, JSON.stringify([[...must].sort(), [...may].sort()])];
    }));
  }

  /** Processes every queued message, oldest first, without faults, until the queues are empty (a failed one goes to the back). */
  async drain(): Promise<void> {
    let failedInARow = 0;
    while (this.system.queue.length > 0) {
      if (failedInARow > 2 * this.system.queue.length + 2) this.fail(`the queues do not drain: ${this.system.queue.map((message) => this.describe(message)).join('; ')}`);
      const message = this.system.queue[0]!;
      await this.process([{ message }], 1);
      if (this.system.queue.includes(message)) {
        this.system.queue.push(...this.system.queue.splice(this.system.queue.indexOf(message), 1));
        failedInARow += 1;
      } else failedInARow = 0;
    }
    await checkFinal(this);
  }

  /** What the store recorded about an event: its stamps and, for a post, how it was fanned out. */
  private async observe(event: ModelEvent): Promise<void> {
    const type = TYPE_OF[event.kind];
    const ledger = await this.system.arrivalRecord(type, event.eventId);
    if (ledger?.arrivalMs !== undefined) event.stampMs = ledger.arrivalMs;
    if (event.intakeMs === undefined && event.kind !== 'post') {
      // The system records the intake from issue 26 on; before it, the first copy attempted stands in.
      if (ledger?.intakeMs !== undefined) event.intakeMs = ledger.intakeMs;
      else if (ledger !== undefined || event.status === 'done') event.intakeMs = [...event.attemptedCopies][0];
    }
    if (event.kind !== 'post' || event.stampMs === undefined) return;
    // The mode the fan-out recorded with the stamp (since issue 26); before it, the items in the store say.
    if (ledger?.mode !== undefined) {
      event.modes.add(ledger.mode);
      return;
    }
    const { tenantId } = this.system;
    const base = { tenantId, type, eventId: event.eventId, timeMs: event.stampMs };
    if (await this.system.itemExists('inbox', keys.feedItem(tenantId, event.actor, 0, notificationId({ ...base, recipient: feedRecipient(event.actor) })))) event.modes.add('celebrity');
    if (await this.system.itemExists('inbox', { pk: keys.recentPostsPartition(tenantId, event.actor), sk: notificationId({ ...base, recipient: recentPostsRecipient(event.actor) }) })) event.modes.add('ordinary');
  }

  private refreshPromotions(): void {
    this.model.promotionsOpen.clear();
    for (const message of this.system.queue) {
      if (message.celebrityId !== undefined) this.model.promotionsOpen.set(message.celebrityId, (this.model.promotionsOpen.get(message.celebrityId) ?? 0) + 1);
    }
  }

  describe(message: QueuedMessage): string {
    if (message.queue === 'promotion') return `promotion page of ${message.celebrityId} (${message.messageId})`;
    const event = this.model.events.get(message.eventId!);
    return `${message.queue} ${message.eventId}${event ? ` ${event.actor}${event.followee !== undefined ? ` -> ${event.followee}` : ''}` : ''} (${message.messageId}, sent t=${message.sentMs - this.startedAtMs})`;
  }

  at(): number {
    return this.system.clock.nowMs() - this.startedAtMs;
  }

  fail(message: string): never {
    throw new Error(`${message}\n--- sequence (tenant ${this.system.tenantId}) ---\n${this.log.join('\n')}`);
  }
}
