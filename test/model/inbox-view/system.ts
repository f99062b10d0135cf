/**
 * The system under test of the inbox-view model: the REAL core (fan-out, retraction, the read
 * service, the marks, the per-item actions, snooze and its comeback, live delivery) over one set of
 * ports (`Backend`: dynalite adapters or the in-memory ports), with a manual clock, recorded queues
 * and schedules, fake sockets, and faults injected between the writes of one action or one fan-out.
 */
import { escalationVerdict, type EscalationVerdict } from '../../../src/core/channels/escalation.js';
import { ScheduledSnoozeReturns } from '../../../src/core/actions/snooze-returns.js';
import { InboxActions, SNOOZE_PAST_EXPIRY, type ItemAction } from '../../../src/core/actions/inbox-actions.js';
import { ReadMarks } from '../../../src/core/actions/read-marks.js';
import { InboxStateSync } from '../../../src/core/actions/inbox-state-sync.js';
import { ReadStateSync } from '../../../src/core/actions/read-state-sync.js';
import { FanOutService, type FanOutDeps } from '../../../src/core/fanout/fanout-service.js';
import { LateArrivalMarking } from '../../../src/core/fanout/late-arrivals.js';
import { RetractionService } from '../../../src/core/fanout/retraction.js';
import type { NotificationEvent } from '../../../src/core/fanout/events.js';
import type { DeliveryJob } from '../../../src/core/jobs/delivery-job.js';
import { LiveDelivery } from '../../../src/core/live/live-delivery.js';
import type { LiveMessage } from '../../../src/core/live/live-messages.js';
import { NotFoundError, ValidationError } from '../../../src/core/model/errors.js';
import type { UserRef } from '../../../src/core/model/user.js';
import type { OneTimeSchedule, Scheduler } from '../../../src/core/ports/scheduler.js';
import type { InboxWriter, LateArrivalRecorder, OwnInboxItemWriter } from '../../../src/core/ports/inbox.js';
import type { StoredNotification } from '../../../src/core/model/notification.js';
import type { ArrivalLedger } from '../../../src/core/ports/fan-out.js';
import { decodeCursor, type InboxFilter } from '../../../src/core/read/cursor.js';
import { InboxReadService } from '../../../src/core/read/inbox-read-service.js';
import type { Counts } from '../../../src/core/model/read-state.js';
import type { Notification } from '../../../src/core/model/notification.js';
import { findNotificationType } from '../../../src/notifications/index.js';
import { FakeDirectory, FakeLedger, FakePusher } from '../../support/live-fakes.js';
import { RecordingJobQueue, RecordingPromotionQueue } from '../../support/pipeline-fakes.js';
import type { Backend } from './backend.js';
import { itemReleaseSchema, jobsOfItemReleases, looksLikeItemRelease } from '../../../src/core/jobs/item-release.js';

export const CURSOR_SECRET = 'model-cursor-secret';
export const JOB_SECRET = 'model-job-secret';
export const FEED_SHARDS = 2;
export const TTL_DAYS = 2;
const URGENT_QUEUE = 'arn:aws:sqs:us-east-1:000000000000:urgent';

/** Thrown by an injected fault: the process "dies" there (a Lambda killed, a request cut). */
export class InjectedKill extends Error {
  constructor(where: string) {
    super(`injected kill ${where}`);
  }
}

export type FanOutFault = { kind: 'afterStamp' } | { kind: 'partialWrite'; items: number } | { kind: 'afterLateMarkers' };
export type SnoozeFault = 'afterComeback' | 'afterException';

export interface ManualClockLike {
  nowMs(): number;
}

/** A scheduler that records schedules; the harness fires the due ones. */
class RecordingScheduler implements Scheduler {
  readonly schedules = new Map<string, OneTimeSchedule>();
  fired = new Set<string>();
  async scheduleOnce(schedule: OneTimeSchedule) {
    if (this.schedules.has(schedule.name)) return 'already_scheduled' as const;
    this.schedules.set(schedule.name, schedule);
    return 'created' as const;
  }
  due(nowMs: number): OneTimeSchedule[] {
    const due = [...this.schedules.values()].filter((schedule) => schedule.atMs <= nowMs && !this.fired.has(schedule.name));
    for (const schedule of due) this.fired.add(schedule.name);
    return due.sort((a, b) => a.atMs - b.atMs);
  }
}

export type ActionOutcome = 'ok' | 'notFound' | 'invalid' | 'pastExpiry' | 'failed';

export interface Push {
  connectionId: string;
  message: LiveMessage;
}

export class InboxSystem {
  readonly reads: InboxReadService;
  private readonly marks: ReadMarks;
  private readonly actions: InboxActions;
  private readonly fanOut: FanOutService;
  readonly queue = new RecordingJobQueue();
  readonly scheduler = new RecordingScheduler();
  readonly directory = new FakeDirectory();
  readonly pusher = new FakePusher();
  private readonly delivery: LiveDelivery;
  private fanOutFault: FanOutFault | undefined;
  private snoozeFault: SnoozeFault | undefined;
  private delivered = 0;

  constructor(
    readonly backend: Backend,
    readonly user: UserRef,
    private readonly clock: ManualClockLike,
    connections: readonly string[],
    followed: readonly string[],
    /** Every mark and action tells the user's connections (`read_state`, `item_state`, `archived_read`), as the REST handlers do. */
    liveSync = false,
  ) {
    const { ports } = backend;
    this.reads = new InboxReadService({
      inbox: ports.inbox,
      celebrities: ports.graphReads,
      feedHeads: ports.graphReads,
      celebrityPosts: ports.celebrityPosts,
      readState: ports.readState,
      actionLookup: ports.actionLookup,
      clock,
      cursorSecret: CURSOR_SECRET,
      feedShards: FEED_SHARDS,
      inboxTtlDays: TTL_DAYS,
      retractions: ports.retractions,
      // Every chance to move the counts floor is taken (the deployed step of 25 is never reached in 50 steps).
      countsFloorMinStep: 1,
    });
    const readStateListener = liveSync ? new ReadStateSync({ directory: this.directory, pusher: this.pusher, readState: ports.readState, counts: this.reads }) : undefined;
    const itemStateListener = liveSync ? new InboxStateSync({ directory: this.directory, pusher: this.pusher, counts: this.reads }) : undefined;
    this.marks = new ReadMarks({ readState: ports.readState, view: this.reads, clock, inboxTtlDays: TTL_DAYS, ...(readStateListener ? { listener: readStateListener } : {}) });
    const snoozeInbox: OwnInboxItemWriter = {
      // The comeback is one PutItem into the user's own partition (issue 28): the same write, one item.
      putOwnInboxItem: async (user: UserRef, item: StoredNotification) => {
        await ports.inbox.writeInboxItems([{ source: { kind: 'own', tenantId: user.tenantId, userId: user.userId }, item }]);
        if (this.takeSnoozeFault('afterComeback')) throw new InjectedKill('after the comeback write');
      },
    };
    const actionsReadState = {
      ...ports.readState,
      putExceptions: async (...args: Parameters<typeof ports.readState.putExceptions>) => {
        await ports.readState.putExceptions(...args);
        if (this.takeSnoozeFault('afterException')) throw new InjectedKill('after the snooze exception write');
      },
      recordUnreadBelowMark: (...args: Parameters<typeof ports.readState.recordUnreadBelowMark>) => ports.readState.recordUnreadBelowMark(...args),
      archiveAllRead: (...args: Parameters<typeof ports.readState.archiveAllRead>) => ports.readState.archiveAllRead(...args),
    };
    this.actions = new InboxActions({
      view: this.reads,
      readState: actionsReadState,
      clock,
      inboxTtlDays: TTL_DAYS,
      ...(itemStateListener ? { listener: itemStateListener } : {}),
      snoozeReturns: new ScheduledSnoozeReturns({ inbox: snoozeInbox, scheduler: this.scheduler, urgentQueueArn: URGENT_QUEUE, snoozeJobSecret: JOB_SECRET }),
    });
    const afterStamp = <T>(stamp: T): T => {
      if (this.fanOutFault?.kind === 'afterStamp') {
        this.fanOutFault = undefined;
        throw new InjectedKill('after the arrival stamp');
      }
      return stamp;
    };
    const arrivals: ArrivalLedger = {
      stampArrival: async (...args) => afterStamp(await ports.arrivals.stampArrival(...args)),
      stampEvent: async (...args) => afterStamp(await ports.arrivals.stampEvent(...args)),
      restampArrival: async (...args) => afterStamp(await ports.arrivals.restampArrival(...args)),
      stampRetracted: (...args) => ports.arrivals.stampRetracted(...args),
    };
    const faultyInbox: InboxWriter = {
      writeInboxItems: async (items) => {
        const fault = this.fanOutFault;
        if (fault?.kind === 'partialWrite') {
          this.fanOutFault = undefined;
          await ports.inbox.writeInboxItems(items.slice(0, fault.items));
          throw new InjectedKill(`after a partial BatchWrite (${fault.items} of ${items.length})`);
        }
        await ports.inbox.writeInboxItems(items);
      },
    };
    const lateMarkers: LateArrivalRecorder = {
      recordLateArrivals: async (markers) => {
        await ports.readState.recordLateArrivals(markers);
        if (this.fanOutFault?.kind === 'afterLateMarkers') {
          this.fanOutFault = undefined;
          throw new InjectedKill('after the late arrivals\' markers, before their items');
        }
      },
    };
    // As the deployed fan-out composes it: late own items also write their markers first (counts-floor.ts).
    const fanOutInbox = new LateArrivalMarking(faultyInbox, lateMarkers, clock);
    const retractions = new RetractionService({ arrivals, store: ports.retractions, clock, inboxTtlDays: TTL_DAYS, deliveryQueue: this.queue });
    const deps: FanOutDeps = {
      graph: ports.graph,
      inbox: fanOutInbox,
      arrivals,
      recentPosts: ports.recentPosts,
      celebrityPostsIndex: ports.celebrityPosts,
      clock,
      deliveryQueue: this.queue,
      promotionQueue: new RecordingPromotionQueue(),
      settings: { celebrityThreshold: 1_000_000, feedShards: FEED_SHARDS, inboxTtlDays: TTL_DAYS },
      retractions,
      landed: ports.inbox,
    };
    this.fanOut = new FanOutService(deps);
    for (const connectionId of connections) this.directory.connect(user, connectionId);
    for (const celebrityId of followed) this.directory.subscribe(celebrityId, [connections.map((connectionId) => ({ ...user, connectionId }))]);
    this.delivery = new LiveDelivery({ directory: this.directory, ledger: new FakeLedger(), pusher: this.pusher, isDigestible: (type) => findNotificationType(type)?.digestible ?? false, retractions: ports.retractions, clock });
  }

  private takeSnoozeFault(at: SnoozeFault): boolean {
    if (this.snoozeFault !== at) return false;
    this.snoozeFault = undefined;
    return true;
  }

  /** Processes one producer event through the real fan-out; `fault` kills it between two of its writes. */
  async publish(event: NotificationEvent, fault?: FanOutFault): Promise<'landed' | 'killed'> {
    const type = findNotificationType(event.type);
    if (!type) throw new Error(`unknown type ${event.type}`);
    this.fanOutFault = fault;
    try {
      await this.fanOut.process(event, type);
      return 'landed';
    } catch (error) {
      if (error instanceof InjectedKill) return 'killed';
      throw error;
    } finally {
      this.fanOutFault = undefined;
    }
  }

  private outcomeOf(error: unknown): ActionOutcome {
    if (error instanceof NotFoundError) return 'notFound';
    if (error instanceof ValidationError) return error.code === SNOOZE_PAST_EXPIRY ? 'pastExpiry' : 'invalid';
    if (error instanceof InjectedKill) return 'failed';
    throw error;
  }

  /** The escalation's decision at fire time, as the channel consumer makes it: one read of the ports, then the core's verdict. */
  async escalationVerdict(id: string, type: string, eventId: string, when: 'unseen' | 'unread'): Promise<EscalationVerdict> {
    const { state, retracted } = await this.backend.ports.escalation.escalationState(this.user, [{ notificationId: id, type, eventId }]);
    return escalationVerdict(id, state, retracted.has(id), when);
  }

  async act(action: ItemAction, id: string): Promise<ActionOutcome> {
    try {
      if (action === 'read') await this.marks.markOneRead(this.user, id);
      else await this.actions.changeOne(this.user, id, action);
      return 'ok';
    } catch (error) {
      return this.outcomeOf(error);
    }
  }

  async bulk(action: ItemAction, ids: readonly string[]): Promise<{ updated: string[]; notFound: string[] }> {
    return this.actions.bulk(this.user, ids, action);
  }

  async snooze(id: string, untilMs: number, fault?: SnoozeFault): Promise<ActionOutcome> {
    this.snoozeFault = fault;
    try {
      await this.actions.snooze(this.user, id, new Date(untilMs).toISOString());
      return 'ok';
    } catch (error) {
      return this.outcomeOf(error);
    } finally {
      this.snoozeFault = undefined;
    }
  }

  readAll(upTo?: string) {
    return this.marks.markAllRead(this.user, upTo);
  }

  seenAll(upTo?: string) {
    return this.marks.markAllSeen(this.user, upTo);
  }

  archiveRead() {
    return this.actions.archiveAllRead(this.user);
  }

  /** Every page of a walk by cursor (the ids and the presented items). */
  async walk(request: { limit: number; since?: string; filter?: InboxFilter }): Promise<{ pages: Notification[][] }> {
    const pages: Notification[][] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 200; guard += 1) {
      const page = await this.reads.listPage(this.user, { limit: request.limit, ...(request.since !== undefined ? { since: request.since } : {}), ...(request.filter ? { filter: request.filter } : {}), ...(cursor ? { cursor: decodeCursor(cursor, CURSOR_SECRET) } : {}) });
      pages.push(page.items);
      cursor = page.nextCursor;
      if (cursor === null) return { pages };
    }
    throw new Error('a cursor walk did not end in 200 pages');
  }

  firstPage(request: { limit: number; since?: string; filter?: InboxFilter }) {
    return this.reads.listPage(this.user, request);
  }

  counts(types?: readonly string[]): Promise<Counts> {
    const excluded = types === undefined ? undefined : ['mention.created', 'comment.created', 'post.published'].filter((type) => !types.includes(type));
    return this.reads.counts(this.user, excluded === undefined ? {} : { excludeTypes: excluded });
  }

  /** Runs the queued delivery jobs and the due schedules through live delivery; answers the new pushes. */
  async deliver(): Promise<Push[]> {
    const inputs: { recordId: string; job: DeliveryJob }[] = [];
    for (const job of this.queue.jobs.splice(0)) inputs.push({ recordId: `r${inputs.length}`, job });
    for (const schedule of this.scheduler.due(this.clock.nowMs())) {
      const { sig: _sig, ...body } = JSON.parse(schedule.payload) as Record<string, unknown>;
      if (looksLikeItemRelease(body)) {
        // A snooze comeback is scheduled as a reference: read back here as the delivery handler does (a deleted one is not pushed).
        const { jobs } = await jobsOfItemReleases(this.backend.ports.inbox, [itemReleaseSchema.parse(body)], this.clock.nowMs());
        for (const job of jobs) if (job) inputs.push({ recordId: `s${inputs.length}`, job });
        continue;
      }
      inputs.push({ recordId: `s${inputs.length}`, job: body as unknown as DeliveryJob });
    }
    for (const input of inputs) await this.delivery.deliver([input], input.job.priority);
    const fresh = this.pusher.posts.slice(this.delivered);
    this.delivered = this.pusher.posts.length;
    return fresh;
  }
}
