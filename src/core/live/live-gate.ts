/**
 * The gate in front of live pushes (the inbox item is always written first, whatever happens here):
 *
 * - muted type or live delivery off for the type: no push;
 * - quiet hours in the user's zone (non-urgent, or urgent of a type that does not bypass): the push
 *   is held until the window ends; unreadable preferences hold it too (fail closed) and re-check later;
 * - rate limit: above N pushes per user per window, the rest of the window's pushes are held until
 *   the window ends and then go out as ONE digest.
 *
 * Held pushes of one user released at the same instant share one hold item and one one-time
 * schedule (deterministic name), whose message comes back to a delivery queue at the release time.
 */
import * as z from 'zod';
import { forEachBounded } from '../model/bounded-parallel.js';
import { pushToConnection } from './connection-push.js';
import type { Priority } from '../jobs/delivery-job.js';
import { IDENTIFIER_PATTERN } from '../model/keys.js';
import { decideLiveDelivery, exceedsRateLimit, FAIL_CLOSED_MAX_HOLDS, rateLimitWindowAt, RATE_LIMIT_WINDOW_MS, type LiveDecision } from '../preferences/delivery-policy.js';
import type { ConnectionDirectory, ConnectionPusher, DeliveryLedger } from '../ports/live.js';
import type { Notification } from '../model/notification.js';
import type { Clock } from '../ports/clock.js';
import type { UserRef } from '../model/user.js';
import type { PreferencesLookup } from '../preferences/preferences.js';
import type { PreferencesReader } from '../preferences/store.js';
import { scheduleName } from '../jobs/schedules.js';
import type { Scheduler } from '../ports/scheduler.js';
import type { HeldPush, HeldSource, LiveHoldStore, StoredHeldPush } from '../ports/live.js';
import { heldPushId, resolveHeldPushes, type HeldItemsDeps, type ResolvedHeldPush } from './held-items.js';
import type { TraceEntry, TraceRecorder } from '../ports/trace.js';
import type { ErasedUsers } from '../ports/erased-users.js';

/** A held hold item keeps at most this many notifications (a digest beyond it would not fit 128 KB anyway). */
export const MAX_HELD_PER_RELEASE = 100;
/** Hold items and rate counters outlive their release by this much (TTL), for late redeliveries. */
const HOLD_RETENTION_SECONDS = 2 * 86_400;

const identifier = z.string().regex(IDENTIFIER_PATTERN);

/** The message a release schedule puts on the delivery queue at the release instant. */
export const liveReleaseMessageSchema = z
  .object({ v: z.literal(1), kind: z.literal('live-release'), tenantId: identifier, userId: identifier, releaseAtMs: z.number().int().nonnegative() })
  .strict();
export type LiveReleaseMessage = z.infer<typeof liveReleaseMessageSchema>;

/** Parses a queue body as a release message; undefined for anything else (e.g. a delivery job). */
export function parseLiveReleaseMessage(body: unknown): LiveReleaseMessage | undefined {
  const parsed = liveReleaseMessageSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

export interface GateCandidate extends UserRef {
  notification: Notification;
  /** Where a held push of it is read back from (default the user's own inbox). */
  source?: HeldSource;
  priority: Priority;
  /** The producer's event id, kept with a held push for the release stage's trace. */
  eventId?: string;
}

export type GateVerdict = 'push' | 'held' | 'skipped';

/** A verdict with its reason (for the delivery trace and the suppression metrics). */
export interface GateDecision {
  verdict: GateVerdict;
  reason?: 'muted' | 'live_delivery_off' | 'quiet_hours' | 'preferences_unavailable' | 'rate_limited';
  /** When a held push is released. */
  untilMs?: number;
}

export interface LiveGateSettings {
  /** Live pushes per user per window; 0 disables the limit. */
  rateLimitPerWindow: number;
  rateLimitWindowMs?: number;
}

export interface LiveGateDeps extends HeldItemsDeps {
  preferences: PreferencesReader;
  holds: LiveHoldStore;
  scheduler: Scheduler;
  /** Queue the release schedules target (the urgent delivery queue: no batching window). */
  releaseQueueArn: string;
  clock: Clock;
  settings: LiveGateSettings;
  /** From the catalog: whether an urgent notification of this type ignores quiet hours (default yes). */
  urgentBypassesQuietHours(type: string): boolean;
  onEvent?: (message: string, context: Record<string, unknown>) => void;
  /** The release stage's trace (never throws: the composition wraps it). */
  trace?: TraceRecorder;
}

/** Counter and hold writes in flight at once (an info batch may hold thousands of recipients). */
const COUNTER_PARALLELISM = 16;

const userKey = (user: UserRef) => `${user.tenantId}\u0000${user.userId}`;
const byIdAscending = (a: { notification: Notification }, b: { notification: Notification }) => (a.notification.id < b.notification.id ? -1 : a.notification.id > b.notification.id ? 1 : 0);
/** What a hold keeps of a candidate: a reference to its item. */
const heldOf = (candidate: GateCandidate, failClosedHolds: number): HeldPush => ({ id: candidate.notification.id, source: candidate.source ?? 'own', priority: candidate.priority, failClosedHolds, ...eventIdOf(candidate) });

export class LiveDeliveryGate {
  constructor(private readonly deps: LiveGateDeps) {}

  /**
   * One verdict per candidate, in order. Throws when the counters or holds cannot be written
   * (the caller fails the records so the queue redelivers them; nothing was pushed yet).
   */
  async admit(candidates: readonly GateCandidate[]): Promise<GateVerdict[]> {
    return (await this.admitDetailed(candidates)).map((decision) => decision.verdict);
  }

  /** As `admit`, with the reason of each verdict other than an immediate push. */
  async admitDetailed(candidates: readonly GateCandidate[]): Promise<GateDecision[]> {
    const decisions: GateDecision[] = candidates.map(() => ({ verdict: 'push' }));
    if (candidates.length === 0) return decisions;
    const nowMs = this.deps.clock.nowMs();
    const lookups = await this.lookups(candidates);
    const holds = new Map<string, { user: UserRef; releaseAtMs: number; entries: { index: number; push: StoredHeldPush }[] }>();
    const addHold = (index: number, user: UserRef, releaseAtMs: number, push: StoredHeldPush) => {
      const key = `${userKey(user)}\u0000${releaseAtMs}`;
      const group = holds.get(key) ?? { user: { tenantId: user.tenantId, userId: user.userId }, releaseAtMs, entries: [] };
      group.entries.push({ index, push });
      holds.set(key, group);
    };
    const pushesByUser = new Map<string, { user: UserRef; indexes: number[] }>();

    candidates.forEach((candidate, index) => {
      const decision = this.decide(nowMs, candidate.notification.type, candidate.priority, lookups.get(userKey(candidate)));
      if (decision.action === 'skip') {
        decisions[index] = { verdict: 'skipped', reason: decision.reason };
      } else if (decision.action === 'hold') {
        decisions[index] = { verdict: 'held', reason: decision.reason, untilMs: decision.untilMs };
        addHold(index, candidate, decision.untilMs, heldOf(candidate, decision.reason === 'preferences_unavailable' ? 1 : 0));
      } else {
        const group = pushesByUser.get(userKey(candidate)) ?? { user: candidate, indexes: [] };
        group.indexes.push(index);
        pushesByUser.set(userKey(candidate), group);
      }
    });

    const { rateLimitPerWindow } = this.deps.settings;
    if (rateLimitPerWindow > 0) {
      const window = rateLimitWindowAt(nowMs, this.deps.settings.rateLimitWindowMs ?? RATE_LIMIT_WINDOW_MS);
      await forEachBounded(
        [...pushesByUser.values()],
        COUNTER_PARALLELISM,
        async ({ user, indexes }) => {
          const total = await this.deps.holds.countPushes(user, window.startMs, indexes.length, Math.ceil(window.endMs / 1000) + HOLD_RETENTION_SECONDS);
          if (!exceedsRateLimit(total, rateLimitPerWindow)) return;
          const allowed = Math.max(0, rateLimitPerWindow - (total - indexes.length));
          const ordered = [...indexes].sort((a, b) => byIdAscending(candidates[a]!, candidates[b]!));
          for (const index of ordered.slice(allowed)) {
                decisions[index] = { verdict: 'held', reason: 'rate_limited', untilMs: window.endMs };
            addHold(index, user, window.endMs, heldOf(candidates[index]!, 0));
          }
          this.deps.onEvent?.('rate limit reached; holding for the window digest', { tenantId: user.tenantId, userId: user.userId, total, releaseAt: new Date(window.endMs).toISOString() });
        },
      );
    }

    await forEachBounded([...holds.values()], COUNTER_PARALLELISM, async ({ user, releaseAtMs, entries }) => {
      const outcome = await this.holdUntil(user, releaseAtMs, entries.map((entry) => entry.push));
      // The hold was released a moment ago: its time has come, so push now instead.
      if (outcome === 'released') for (const entry of entries) decisions[entry.index] = { verdict: 'push' };
    });
    return decisions;
  }

  /**
   * The pushes of a fired release, read back by reference (one gone meanwhile is dropped) and
   * re-checked against the user's preferences now: still quiet (a rate-limit digest landing in quiet
   * hours) or unreadable -> held again; muted / live off -> dropped.
   */
  async takeRelease(message: LiveReleaseMessage): Promise<Notification[]> {
    const user: UserRef = { tenantId: message.tenantId, userId: message.userId };
    const stored = await this.deps.holds.release(user, message.releaseAtMs);
    if (stored.length === 0) return [];
    const nowMs = this.deps.clock.nowMs();
    const { resolved: held, gone } = await resolveHeldPushes(this.deps, user, stored, nowMs);
    const lookup = (await this.deps.preferences.getPreferences(user.tenantId, [user.userId])).get(user.userId);
    const now: Notification[] = [];
    const seen = new Set<string>();
    const again = new Map<number, ResolvedHeldPush[]>();
    const trace: TraceEntry[] = [];
    const traced = ({ push }: { push: StoredHeldPush }, outcome: TraceEntry['outcome'], detail: string) => {
      if (push.eventId !== undefined) trace.push({ tenantId: user.tenantId, userId: user.userId, eventId: push.eventId, notificationId: heldPushId(push), stage: 'release', outcome, atMs: nowMs, detail });
    };
    for (const push of gone) traced({ push }, 'dropped', `dropped at release: notification ${heldPushId(push)} is gone`);
    for (const entry of [...held].sort(byIdAscending)) {
      const { push } = entry;
      if (seen.has(entry.notification.id)) continue;
      seen.add(entry.notification.id);
      const decision = this.decide(nowMs, entry.notification.type, push.priority, lookup);
      if (decision.action === 'push') {
        now.push(entry.notification);
        traced(entry, 'released', `held push released${held.length > 1 ? ` in a digest of ${held.length}` : ''}`);
      } else if (decision.action === 'hold' && decision.untilMs > message.releaseAtMs) {
        const failClosedHolds = decision.reason === 'preferences_unavailable' ? push.failClosedHolds + 1 : 0;
        if (failClosedHolds > FAIL_CLOSED_MAX_HOLDS) {
          this.deps.onEvent?.('giving up a live push: preferences unreadable for a day', { tenantId: user.tenantId, userId: user.userId, notificationId: entry.notification.id });
          traced(entry, 'dropped', 'preferences unreadable for a day: live push given up (the inbox item stays)');
          continue;
        }
        traced(entry, decision.reason, `held again until ${new Date(decision.untilMs).toISOString()}`);
        again.set(decision.untilMs, [...(again.get(decision.untilMs) ?? []), { notification: entry.notification, push: { ...push, failClosedHolds } }]);
      } else if (decision.action === 'hold') {
        now.push(entry.notification);
        traced(entry, 'released', 'held push released');
      } else traced(entry, decision.reason, `dropped at release: ${decision.reason}`);
    }
    for (const [releaseAtMs, entries] of again) {
      if ((await this.holdUntil(user, releaseAtMs, entries.map((entry) => entry.push))) === 'released') now.push(...entries.map((entry) => entry.notification));
    }
    await this.deps.trace?.record(trace);
    return now;
  }

  private decide(nowMs: number, type: string, priority: Priority, lookup: PreferencesLookup | undefined): LiveDecision {
    return decideLiveDelivery(nowMs, { type, priority, urgentBypassesQuietHours: this.deps.urgentBypassesQuietHours(type) }, lookup ?? { status: 'unreadable', reason: 'no lookup' });
  }

  private async lookups(candidates: readonly GateCandidate[]): Promise<Map<string, PreferencesLookup>> {
    const usersByTenant = new Map<string, Set<string>>();
    for (const candidate of candidates) usersByTenant.set(candidate.tenantId, (usersByTenant.get(candidate.tenantId) ?? new Set()).add(candidate.userId));
    const result = new Map<string, PreferencesLookup>();
    await Promise.all(
      [...usersByTenant].map(async ([tenantId, users]) => {
        const lookups = await this.deps.preferences.getPreferences(tenantId, [...users]);
        for (const [userId, lookup] of lookups) result.set(userKey({ tenantId, userId }), lookup);
      }),
    );
    return result;
  }

  /** Adds to the hold and makes sure its release schedule exists (idempotent by name). */
  private async holdUntil(user: UserRef, releaseAtMs: number, pushes: readonly StoredHeldPush[]): Promise<'held' | 'released'> {
    const outcome = await this.deps.holds.hold(user, releaseAtMs, pushes, Math.ceil(releaseAtMs / 1000) + HOLD_RETENTION_SECONDS);
    if (outcome.status === 'released') return 'released';
    if (!outcome.scheduled) {
      const message: LiveReleaseMessage = { v: 1, kind: 'live-release', tenantId: user.tenantId, userId: user.userId, releaseAtMs };
      await this.deps.scheduler.scheduleOnce({
        name: scheduleName('hold', user.tenantId, `${user.userId}\u0000${releaseAtMs}`),
        atMs: releaseAtMs,
        targetArn: this.deps.releaseQueueArn,
        payload: JSON.stringify(message),
      }, { tenantId: user.tenantId, userIds: [user.userId] });
      await this.deps.holds.markScheduled(user, releaseAtMs);
    }
    this.deps.onEvent?.('live push held', { tenantId: user.tenantId, userId: user.userId, count: pushes.length, releaseAt: new Date(releaseAtMs).toISOString() });
    return 'held';
  }
}

const eventIdOf = (candidate: GateCandidate): { eventId?: string } => (candidate.eventId === undefined ? {} : { eventId: candidate.eventId });

export interface HeldPushReleaserDeps {
  gate: Pick<LiveDeliveryGate, 'takeRelease'>;
  directory: Pick<ConnectionDirectory, 'connectionsOf' | 'removeConnection'>;
  ledger: DeliveryLedger;
  pusher: ConnectionPusher;
  /** Erasure tombstones: a release for an erased user pushes nothing and holds nothing again. */
  erased?: ErasedUsers;
}

/**
 * Pushes a fired release to every connection of the user: one `notification` message, or ONE
 * `digest` for several. Each (notification, connection) is claimed first, so a redelivered release
 * pushes nothing twice. Throws when a push fails (the release message is retried).
 */
export class HeldPushReleaser {
  constructor(private readonly deps: HeldPushReleaserDeps) {}

  async release(message: LiveReleaseMessage): Promise<{ notifications: number; messagesSent: number; erased?: true }> {
    if (this.deps.erased && (await this.deps.erased.erasedAmong(message.tenantId, [message.userId])).size > 0) return { notifications: 0, messagesSent: 0, erased: true };
    const notifications = await this.deps.gate.takeRelease(message);
    if (notifications.length === 0) return { notifications: 0, messagesSent: 0 };
    const connections = await this.deps.directory.connectionsOf([{ tenantId: message.tenantId, userId: message.userId }]);
    // Held pushes collapse into one message per connection (a digest for several); a failure gives
    // back the connection's claims, so the retried release pushes them all.
    const pushes = notifications.map((notification) => ({ notification, digestible: true, tag: notification.id }));
    const results = await Promise.all(connections.map((target) => pushToConnection(this.deps, target, pushes, 'connection')));
    const failure = results.find((result) => result.errors.length > 0);
    if (failure) throw failure.errors[0];
    const messagesSent = results.reduce((sum, result) => sum + result.messagesSent, 0);
    return { notifications: notifications.length, messagesSent };
  }
}
