/**
 * The consumer of one channel queue (push or email). The fan-out enqueues the same signed job it
 * puts on the in-app queue; for each recipient this service applies, in order:
 *
 * - the type's channel offer, the user's mute and per-type channel switch (skip);
 * - quiet hours in the user's zone as for live delivery (urgent of a bypassing type goes now); the
 *   job, narrowed to the user, re-enters the channel queue by a one-time schedule at the window's end;
 *   unreadable preferences fail the record (fail closed: nothing is sent, the queue retries);
 * - push consent (default-deny), devices, the email address and email unsubscribes, read uncached;
 * - the per-user rate limit of the channel: past N messages per window the rest are held until the
 *   window ends and then go out together as ONE digest; a message counts once, however often its
 *   record is retried;
 * - effectively once: a conditional dedup record per (tenant, notification, recipient, channel[, device])
 *   before every send. A dedup store that cannot be read fails the record (no send, retried).
 *   A process killed between a claim and its send leaves the claim: for an at-most-once type (the
 *   default) that send is lost, never doubled; for an at-least-once type the claim says `sending`
 *   until the provider answered (`sent`), and one left `sending` past `sendingTimeoutMs` is taken
 *   over by the retry and sent (a crash after the provider accepted it sends it twice).
 *
 * An escalation job (`escalation` set: the fan-out delayed it by the type's `escalation.afterSeconds`)
 * first re-enters the queue if it came early (delays past SQS's 15 minutes), then honours the
 * user's escalation switch, then reads the marks and the notification's exception once
 * (`escalation.ts`): seen / read meanwhile skips it, archived / deleted / snoozed / retracted cancels
 * it; a due one goes through every rule above (a quiet-hours hold keeps it an escalation, so the
 * release checks the read state again).
 *
 * Provider throttling (429/5xx) gives the claims back and fails the record (SQS redelivers it after
 * the backoff); an invalid or disabled push token removes the device, never to be sent to again.
 */
import { createHash } from 'node:crypto';
import { forEachBounded } from '../model/bounded-parallel.js';
import type { DeliveryJob } from '../jobs/delivery-job.js';
import { jobsOfItemReleases, type ItemRelease, type OwnItemsReader } from '../jobs/item-release.js';
import { decideLiveDelivery, rateLimitWindowAt, RATE_LIMIT_WINDOW_MS } from '../preferences/delivery-policy.js';
import type { Clock } from '../ports/clock.js';
import type { ChannelDedupStore, ChannelRateCounter, ChannelSendKey, ChannelState, ChannelStateStore, DeliveryGuarantee, EmailProvider, PushProvider, SmsOptOutList, SmsProvider, SmsSpendGuard } from './ports.js';
import { smsDayStartMs, type SmsSpendLimits } from './sms.js';
import type { UserRef } from '../model/user.js';
import type { PreferencesReader } from '../preferences/store.js';
import type { Scheduler } from '../ports/scheduler.js';
import type { TraceEntry, TraceOutcome, TraceRecorder } from '../ports/trace.js';
import type { PreferencesLookup } from '../preferences/preferences.js';
import { scheduleName } from '../jobs/schedules.js';
import { channelSwitchedOn, type ChannelOffer, type ChannelSwitches } from '../model/channel.js';
import { emailMessageOf, pushMessageOf, smsTextOf, type ChannelItem } from './channel-messages.js';
import { ALL_TYPES, unsubscribeToken } from './unsubscribe-token.js';
import type { Channel } from '../../contract/channels.js';
import { escalationVerdict, type EscalationCheck, type EscalationMark, type EscalationRule, type EscalationStateReader, type EscalationVerdict } from './escalation.js';
import { erasedAmongUsers, type ErasedSet, type ErasedUsers } from '../ports/erased-users.js';

/**
 * A job on a channel queue; `held` marks one that re-entered after a hold (it joins the user's
 * digest); `escalation` one the fan-out delayed to escalate (sent only if still unseen / unread);
 * `alert` a post alert for a follower who turned them on (pushed whatever the type's push default);
 * `feedOf` the celebrity whose feed holds the notification (a celebrity-tier post's alert: a hold's
 * release reads it back there, not from the follower's own inbox).
 */
export type ChannelJob = DeliveryJob & { held?: true; escalation?: EscalationMark; alert?: true; feedOf?: string };

export interface ChannelInput {
  recordId: string;
  job: ChannelJob;
}

/** A held message back on the channel queue: a reference to the user's notification, read again now. */
export interface ChannelReleaseInput {
  recordId: string;
  release: ItemRelease;
}

/** What the catalog says of a type, for the channels. */
export interface ChannelTypeInfo extends ChannelOffer {
  digestible: boolean;
  sensitive?: boolean;
  urgentBypassesQuietHours?: boolean;
  escalation?: EscalationRule;
  deliveryGuarantee?: DeliveryGuarantee;
  followerAlerts?: boolean;
}

export interface ChannelDeliverySettings {
  /** Messages (a digest counts once) per user per window on this channel; 0 = no limit. */
  rateLimitPerWindow: number;
  rateLimitWindowMs?: number;
  /** Users handled in parallel in one batch (the consumer's concurrency within an invocation). */
  parallelism: number;
  /**
   * At-least-once types: a claim `sending` for longer is taken over (its sender crashed). Longer
   * than the consumer's timeout, so a live attempt is never doubled. Default 2 minutes.
   */
  sendingTimeoutMs?: number;
}

/** Twice the consumers' 30 s timeout and more: a live sender is dead by then (Lambda stops it at its timeout). */
export const SENDING_TIMEOUT_MS_DEFAULT = 120_000;

export interface ChannelDeliveryDeps {
  channel: Channel;
  preferences: PreferencesReader;
  state: ChannelStateStore;
  dedup: ChannelDedupStore;
  rate: ChannelRateCounter;
  push?: PushProvider;
  email?: EmailProvider & { unsubscribeBaseUrl: string; unsubscribeSecret: string };
  /** SMS: the provider, the opt-out list and the spend guards (core/channels/sms.ts). */
  sms?: { provider: SmsProvider; optOuts: SmsOptOutList; spend: SmsSpendGuard; limits: SmsSpendLimits };
  /** Holds: the narrowed job re-enters this channel's queue at the release instant. */
  scheduler: Scheduler;
  channelQueueArn: string;
  /** The signed queue body of a held message's release (the consumer verifies it like any job). */
  signRelease(release: ItemRelease): string;
  /** Reads a released message's notification back (the recipient's own inbox); without it releases find nothing. */
  items?: OwnItemsReader;
  typeInfo(type: string): ChannelTypeInfo | undefined;
  clock: Clock;
  settings: ChannelDeliverySettings;
  /** A WARN line saying what happened (invalid token removed, throttled, rejected, store unreadable). */
  onEvent(level: 'warn' | 'debug', message: string, context: Record<string, unknown>): void;
  /** Erasure tombstones: nothing goes to an erased recipient, nor a notification whose author was erased. */
  erased?: ErasedUsers;
  /** The delivery trace and audit trail: one decision per (notification, recipient), one batched write per batch. */
  trace?: TraceRecorder;
  /** The marks, exceptions and retractions an escalation checks (the consumer of an escalation channel). */
  escalationState?: EscalationStateReader;
}

export interface ChannelReport {
  failedRecordIds: Set<string>;
  messagesSent: number;
  /** Device sends (push) or emails that dedup found already sent. */
  duplicatesSkipped: number;
  held: number;
  skipped: Record<string, number>;
  devicesRemoved: number;
}

/** One batch's report and the decisions it traces. */
interface ChannelRun extends ChannelReport {
  traced: TraceEntry[];
  /** Per candidate, what its sends did on each device (push) or the mailbox (email). */
  sends: Map<Candidate, Set<'sent' | 'duplicate' | 'failed' | 'invalid' | 'rejected'>>;
}

interface Candidate {
  recordId: string;
  job: ChannelJob;
  notificationId: string;
  user: UserRef;
}

const userKey = (user: UserRef) => `${user.tenantId}\u0000${user.userId}`;
/** An escalation due within this is due: SQS and the scheduler fire at second precision, never early. */
const ESCALATION_DUE_SLACK_MS = 1_000;
const ESCALATION_OUTCOME: Record<Exclude<EscalationVerdict, 'due'>, TraceOutcome> = {
  seen: 'escalation_seen',
  read: 'escalation_read',
  archived: 'escalation_cancelled',
  deleted: 'escalation_cancelled',
  snoozed: 'escalation_cancelled',
  retracted: 'escalation_cancelled',
};
/** A message's identity in its rate window: its notification id, or a digest's ids hashed (the same ids are the same digest). */
function messageKeyOf(message: readonly Candidate[]): string {
  const ids = message.map((candidate) => candidate.notificationId).sort();
  return ids.length === 1 ? ids[0]! : `D${createHash('sha256').update(ids.join(',')).digest('base64url').slice(0, 22)}`;
}
/** Hold records outlive their window by this much (rate counters' TTL). */
const COUNTER_RETENTION_SECONDS = 2 * 86_400;

export class ChannelDelivery {
  constructor(private readonly deps: ChannelDeliveryDeps) {}

  async deliver(jobs: readonly ChannelInput[], releases: readonly ChannelReleaseInput[] = []): Promise<ChannelReport> {
    const report: ChannelRun = { failedRecordIds: new Set(), messagesSent: 0, duplicatesSkipped: 0, held: 0, skipped: {}, devicesRemoved: 0, traced: [], sends: new Map() };
    const inputs = [...jobs, ...(await this.releasedJobs(releases, report))];
    const erased = await this.erasedAmong(inputs, report);
    if (!erased) return report;
    const byUser = new Map<string, Candidate[]>();
    for (const { recordId, job } of inputs) {
      if (job.target.kind !== 'recipients') continue;
      const authorErased = erased.has({ tenantId: job.tenantId, userId: job.notification.actor.id });
      for (const recipient of job.target.recipients) {
        const user = { tenantId: job.tenantId, userId: recipient.userId };
        const candidate = { recordId, job, notificationId: recipient.notificationId, user };
        if (authorErased || erased.has(user)) {
          this.skip(report, 'erased', candidate);
          continue;
        }
        const list = byUser.get(userKey(user)) ?? [];
        list.push(candidate);
        byUser.set(userKey(user), list);
      }
    }
    const lookups = await this.lookups([...byUser.values()].map((candidates) => candidates[0]!.user), report, byUser);
    await forEachBounded([...byUser.values()], this.deps.settings.parallelism, async (candidates) => {
      const user = candidates[0]!.user;
      try {
        await this.deliverToUser(user, candidates, lookups.get(userKey(user)), report);
      } catch (error) {
        // Dedup store, channel state or scheduler unreadable: fail closed, nothing more is sent; the queue retries.
        this.deps.onEvent('warn', `${this.deps.channel} delivery failed; the job is retried`, { tenantId: user.tenantId, userId: user.userId, error: String(error) });
        for (const candidate of candidates) report.failedRecordIds.add(candidate.recordId);
      }
    });
    await this.recordTrace(report);
    return report;
  }

  /** The jobs of released holds whose notification still exists (one gone is skipped: deleted, expired); a failed read fails their records. */
  private async releasedJobs(releases: readonly ChannelReleaseInput[], report: ChannelRun): Promise<ChannelInput[]> {
    if (releases.length === 0) return [];
    try {
      const { jobs } = await jobsOfItemReleases(this.deps.items ?? { getItems: async () => new Map() }, releases.map((input) => input.release), this.deps.clock.nowMs());
      return releases.flatMap((input, index): ChannelInput[] => {
        const job = jobs[index];
        // Deleted or expired meanwhile: nothing to send, and no notification to trace.
        if (!job) report.skipped.gone = (report.skipped.gone ?? 0) + 1;
        if (!job) return [];
        const { escalation, alert, feedOf, early } = input.release;
        return [{ recordId: input.recordId, job: { ...job, ...(early ? {} : { held: true as const }), ...(escalation ? { escalation } : {}), ...(alert ? { alert } : {}), ...(feedOf !== undefined ? { feedOf } : {}) } }];
      });
    } catch (error) {
      this.deps.onEvent('warn', `held ${this.deps.channel} messages unreadable; the releases are retried`, { error: String(error) });
      for (const input of releases) report.failedRecordIds.add(input.recordId);
      return [];
    }
  }

  /** The batch's erased recipients and authors; undefined (every record failed, retried) when the tombstones cannot be read. */
  private async erasedAmong(inputs: readonly ChannelInput[], report: ChannelRun): Promise<ErasedSet | undefined> {
    try {
      return await erasedAmongUsers(this.deps.erased, inputs.flatMap(({ job }) => [
        { tenantId: job.tenantId, userId: job.notification.actor.id },
        ...(job.target.kind === 'recipients' ? job.target.recipients.map((recipient) => ({ tenantId: job.tenantId, userId: recipient.userId })) : []),
      ]));
    } catch (error) {
      this.deps.onEvent('warn', `erasure tombstones unreadable: no ${this.deps.channel} until they are (fail closed, retried)`, { error: String(error) });
      for (const input of inputs) report.failedRecordIds.add(input.recordId);
      return undefined;
    }
  }

  private skip(report: ChannelRun, reason: TraceOutcome, candidate: Candidate): void {
    report.skipped[reason] = (report.skipped[reason] ?? 0) + 1;
    this.traceOf(report, candidate, reason);
  }

  private traceOf(report: ChannelRun, candidate: Candidate, outcome: TraceOutcome): void {
    report.traced.push({ tenantId: candidate.user.tenantId, userId: candidate.user.userId, eventId: candidate.job.eventId, notificationId: candidate.notificationId, stage: this.deps.channel, outcome, atMs: this.deps.clock.nowMs() });
  }

  /** The sends' outcome per notification: sent on any device wins, then a retried failure, a duplicate, a removed device, a rejection. */
  private async recordTrace(report: ChannelRun): Promise<void> {
    if (!this.deps.trace) return;
    for (const [candidate, results] of report.sends) {
      const sentOutcome: TraceOutcome = candidate.job.escalation ? 'escalated' : 'sent';
      const outcome: TraceOutcome = results.has('sent') ? sentOutcome : results.has('failed') ? 'send_failed' : results.has('duplicate') ? 'deduplicated' : results.has('invalid') ? 'invalid_endpoint' : 'provider_rejected';
      this.traceOf(report, candidate, outcome);
    }
    await this.deps.trace.record(report.traced);
  }

  private sent(report: ChannelRun, candidates: readonly Candidate[], result: 'sent' | 'duplicate' | 'failed' | 'invalid' | 'rejected'): void {
    for (const candidate of candidates) report.sends.set(candidate, (report.sends.get(candidate) ?? new Set()).add(result));
  }

  private async lookups(users: readonly UserRef[], report: ChannelRun, byUser: Map<string, Candidate[]>): Promise<Map<string, PreferencesLookup>> {
    const result = new Map<string, PreferencesLookup>();
    const tenants = new Map<string, string[]>();
    for (const user of users) tenants.set(user.tenantId, [...(tenants.get(user.tenantId) ?? []), user.userId]);
    for (const [tenantId, userIds] of tenants) {
      try {
        const lookups = await this.deps.preferences.getPreferences(tenantId, userIds);
        for (const [userId, lookup] of lookups) result.set(userKey({ tenantId, userId }), lookup);
      } catch (error) {
        this.deps.onEvent('warn', 'preferences unreadable; failing closed', { tenantId, error: String(error) });
        for (const userId of userIds) for (const candidate of byUser.get(userKey({ tenantId, userId })) ?? []) report.failedRecordIds.add(candidate.recordId);
      }
    }
    return result;
  }

  private async deliverToUser(user: UserRef, candidates: readonly Candidate[], lookup: PreferencesLookup | undefined, report: ChannelRun): Promise<void> {
    const { channel } = this.deps;
    if (lookup === undefined) return;
    if (lookup.status === 'unreadable') {
      this.deps.onEvent('warn', `preferences unreadable: no ${channel} until they are (fail closed, retried)`, { tenantId: user.tenantId, userId: user.userId, reason: lookup.reason });
      for (const candidate of candidates) report.failedRecordIds.add(candidate.recordId);
      return;
    }
    const nowMs = this.deps.clock.nowMs();
    const ready: Candidate[] = [];
    const dueEscalations = await this.dueEscalations(user, candidates, lookup.preferences.channels, report, nowMs);
    for (const candidate of candidates) {
      const type = candidate.job.notification.type;
      const info = this.deps.typeInfo(type);
      if (candidate.job.escalation) {
        if (!dueEscalations.has(candidate)) continue;
      } else if (candidate.job.alert) {
        // A post alert the follower asked for: only their own switch of the channel for the type stops it.
        if (!info?.followerAlerts || lookup.preferences.channels?.[type]?.[channel] === false) {
          this.skip(report, 'channel_off', candidate);
          continue;
        }
      } else if (!info || !channelSwitchedOn(info, lookup.preferences.channels, type, channel)) {
        this.skip(report, 'channel_off', candidate);
        continue;
      }
      const decision = decideLiveDelivery(nowMs, { type, priority: candidate.job.priority, urgentBypassesQuietHours: info?.urgentBypassesQuietHours ?? true }, { ...lookup, preferences: { ...lookup.preferences, liveDelivery: {} } });
      if (decision.action === 'skip') this.skip(report, decision.reason, candidate);
      else if (decision.action === 'hold') {
        await this.hold(candidate, decision.untilMs);
        report.held += 1;
        this.traceOf(report, candidate, decision.reason);
      } else ready.push(candidate);
    }
    if (ready.length === 0) return;
    const state = await this.deps.state.channelState(user);
    const allowed = this.allowedByState(ready, state, report);
    if (allowed.length === 0) return;
    // A number on the opt-out list (STOP) gets nothing, before the rate limit: refused texts use no window.
    if (channel === 'sms' && (await this.deps.sms!.optOuts.isOptedOut(state.sms!.phoneNumber))) {
      allowed.forEach((candidate) => this.skip(report, 'unsubscribed', candidate));
      return;
    }
    const messages = this.groupIntoMessages(allowed);
    const admitted = await this.applyRateLimit(user, messages, report, nowMs);
    for (const message of admitted) {
      if (channel === 'push') await this.sendPush(user, message, state, report);
      else if (channel === 'sms') await this.sendSms(user, message, state.sms!.phoneNumber, report, nowMs);
      else await this.sendEmail(user, message, state.emailAddress!, report);
    }
  }

  /**
   * The escalation candidates still due: an early one re-enters the queue at its due time; the
   * user's switches (escalation, or the channel switched off for the type) skip; then ONE read of
   * the marks, the exceptions and the retractions of the rest decides (seen / read skip; archived,
   * deleted, snoozed, retracted cancel). Throws when that read fails (the record is retried).
   */
  private async dueEscalations(user: UserRef, candidates: readonly Candidate[], switches: ChannelSwitches | undefined, report: ChannelRun, nowMs: number): Promise<Set<Candidate>> {
    const toCheck: Candidate[] = [];
    for (const candidate of candidates) {
      const mark = candidate.job.escalation;
      if (!mark) continue;
      const type = candidate.job.notification.type;
      const rule = this.deps.typeInfo(type)?.escalation;
      if (!rule || rule.channel !== this.deps.channel || !this.deps.escalationState) this.skip(report, 'channel_off', candidate);
      else if (mark.dueAtMs > nowMs + ESCALATION_DUE_SLACK_MS) {
        await this.reenter(candidate, mark.dueAtMs, 'early_escalation');
        report.held += 1;
        this.traceOf(report, candidate, 'deferred');
      } else if (switches?.[type]?.escalation === false) this.skip(report, 'escalation_off', candidate);
      else if (switches?.[type]?.[this.deps.channel] === false) this.skip(report, 'channel_off', candidate);
      else toCheck.push(candidate);
    }
    const due = new Set<Candidate>();
    if (toCheck.length === 0) return due;
    const checks: EscalationCheck[] = toCheck.map((candidate) => ({ notificationId: candidate.notificationId, type: candidate.job.notification.type, eventId: candidate.job.eventId }));
    const { state, retracted } = await this.deps.escalationState!.escalationState(user, checks);
    for (const candidate of toCheck) {
      const verdict = escalationVerdict(candidate.notificationId, state, retracted.has(candidate.notificationId), candidate.job.escalation!.when);
      if (verdict === 'due') due.add(candidate);
      else this.skip(report, ESCALATION_OUTCOME[verdict], candidate);
    }
    return due;
  }

  private allowedByState(ready: readonly Candidate[], state: ChannelState, report: ChannelRun): Candidate[] {
    if (this.deps.channel === 'push') {
      if (state.pushConsent === null) {
        ready.forEach((candidate) => this.skip(report, 'no_consent', candidate));
        return [];
      }
      if (state.devices.length === 0) {
        ready.forEach((candidate) => this.skip(report, 'no_device', candidate));
        return [];
      }
      return [...ready];
    }
    if (this.deps.channel === 'sms') {
      // No explicit opt-in with a verified number: no text (default deny).
      if (!state.sms) ready.forEach((candidate) => this.skip(report, 'no_consent', candidate));
      return state.sms ? [...ready] : [];
    }
    if (state.emailAddress === null) {
      ready.forEach((candidate) => this.skip(report, 'no_email_address', candidate));
      return [];
    }
    const unsubscribed = new Set(state.emailUnsubscribed);
    return ready.filter((candidate) => {
      const out = unsubscribed.has(ALL_TYPES) || unsubscribed.has(candidate.job.notification.type);
      if (out) this.skip(report, 'unsubscribed', candidate);
      return !out;
    });
  }

  /** Released holds and a digestible type's notifications collapse into one message; the rest go one each. */
  private groupIntoMessages(candidates: readonly Candidate[]): Candidate[][] {
    const digest: Candidate[] = [];
    const single: Candidate[][] = [];
    for (const candidate of [...candidates].sort((a, b) => (a.notificationId < b.notificationId ? -1 : 1))) {
      if (candidate.job.held || this.deps.typeInfo(candidate.job.notification.type)?.digestible) digest.push(candidate);
      else single.push([candidate]);
    }
    return digest.length > 0 ? [...single, digest] : single;
  }

  /**
   * Admits each message against the user's window, once per message: a record retried after one
   * device was throttled finds its message counted already and is not counted again. The messages
   * over the limit are held for the window's digest and do not count (they go out in the next window).
   */
  private async applyRateLimit(user: UserRef, messages: Candidate[][], report: ChannelRun, nowMs: number): Promise<Candidate[][]> {
    const limit = this.deps.settings.rateLimitPerWindow;
    if (limit <= 0) return messages;
    const window = rateLimitWindowAt(nowMs, this.deps.settings.rateLimitWindowMs ?? RATE_LIMIT_WINDOW_MS);
    const admitted: Candidate[][] = [];
    let held = 0;
    for (const message of messages) {
      const verdict = await this.deps.rate.admitMessage(user, this.deps.channel, window.startMs, messageKeyOf(message), limit, Math.ceil(window.endMs / 1000) + COUNTER_RETENTION_SECONDS);
      if (verdict !== 'over_limit') {
        admitted.push(message);
        continue;
      }
      for (const candidate of message) {
        await this.hold(candidate, window.endMs);
        this.traceOf(report, candidate, 'rate_limited');
      }
      report.held += message.length;
      held += message.length;
    }
    if (held > 0) this.deps.onEvent('debug', `${this.deps.channel} rate limit reached; holding for the window digest`, { tenantId: user.tenantId, userId: user.userId, held, releaseAt: new Date(window.endMs).toISOString() });
    return admitted;
  }

  /** A hold: a reference to the recipient's notification re-enters at `atMs` and joins the user's digest then. */
  private async hold(candidate: Candidate, atMs: number): Promise<void> {
    await this.reenter(candidate, atMs, 'hold');
  }

  /**
   * A reference to this recipient's notification re-enters the channel queue at `atMs`
   * (deterministic name: scheduling twice is a no-op; an escalation come early has a name of its
   * own and stays an escalation, a post alert stays one); the schedule names the recipient only, and
   * is referenced for their erasure.
   */
  private async reenter(candidate: Candidate, atMs: number, why: 'hold' | 'early_escalation'): Promise<void> {
    const { tenantId, userId } = candidate.user;
    const { job } = candidate;
    const release: ItemRelease = {
      v: 1,
      kind: 'item-release',
      tenantId,
      userId,
      notificationId: candidate.notificationId,
      priority: job.priority,
      eventId: job.eventId,
      ...(job.feedOf !== undefined ? { feedOf: job.feedOf } : {}),
      ...(job.escalation ? { escalation: job.escalation } : {}),
      ...(job.alert ? { alert: true as const } : {}),
      ...(why === 'early_escalation' ? { early: true as const } : {}),
    };
    const name = scheduleName('hold', tenantId, `${this.deps.channel}\u0000${candidate.notificationId}\u0000${userId}\u0000${atMs}${why === 'hold' ? '' : '\u0000escalation'}`);
    await this.deps.scheduler.scheduleOnce({ name, atMs, targetArn: this.deps.channelQueueArn, payload: this.deps.signRelease(release) }, { tenantId, userIds: [userId] });
  }

  private itemsOf(message: readonly Candidate[]): ChannelItem[] {
    return message.map((candidate) => ({
      notificationId: candidate.notificationId,
      type: candidate.job.notification.type,
      title: candidate.job.notification.title,
      body: candidate.job.notification.body,
      sensitive: this.deps.typeInfo(candidate.job.notification.type)?.sensitive ?? false,
    }));
  }

  private keyOf(candidate: Candidate, deviceId?: string): ChannelSendKey {
    return { ...candidate.user, notificationId: candidate.notificationId, channel: this.deps.channel, ...(deviceId ? { deviceId } : {}) };
  }

  private atLeastOnce(candidate: Candidate): boolean {
    return this.deps.typeInfo(candidate.job.notification.type)?.deliveryGuarantee === 'at-least-once';
  }

  /** One claim: at-least-once types record `sending` (a stale one is taken over); `in_flight`: another attempt holds it. */
  private async claimOne(candidate: Candidate, deviceId?: string): Promise<'claimed' | 'duplicate' | 'in_flight'> {
    const key = this.keyOf(candidate, deviceId);
    if (!this.atLeastOnce(candidate)) return (await this.deps.dedup.claim(key)) ? 'claimed' : 'duplicate';
    const claim = await this.deps.dedup.claimSending(key, this.deps.settings.sendingTimeoutMs ?? SENDING_TIMEOUT_MS_DEFAULT);
    return claim === 'claimed' ? 'claimed' : claim === 'sent' ? 'duplicate' : 'in_flight';
  }

  /**
   * Claims every notification of the message for one destination; the claimed ones (none: all sent
   * before). An at-least-once claim another attempt holds fails its record (retried after the
   * visibility timeout, by when a crashed sender's claim is stale).
   */
  private async claimAll(message: readonly Candidate[], report: ChannelRun, deviceId?: string): Promise<Candidate[]> {
    const outcomes = await Promise.allSettled(message.map((candidate) => this.claimOne(candidate, deviceId)));
    const answer = (index: number) => (outcomes[index]!.status === 'fulfilled' ? (outcomes[index] as PromiseFulfilledResult<'claimed' | 'duplicate' | 'in_flight'>).value : undefined);
    const claimed = message.filter((_candidate, index) => answer(index) === 'claimed');
    const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure) {
      // Claims kept after a failed one would make the retry skip those notifications unsent: give them back first.
      await this.releaseAll(claimed, deviceId);
      throw failure.reason;
    }
    message.forEach((candidate, index) => {
      if (answer(index) !== 'in_flight') return;
      report.failedRecordIds.add(candidate.recordId);
      this.sent(report, [candidate], 'failed');
      this.deps.onEvent('warn', `${this.deps.channel} send held by an earlier attempt (sending); retried once its claim is stale`, { tenantId: candidate.user.tenantId, userId: candidate.user.userId, notificationId: candidate.notificationId, ...(deviceId ? { deviceId } : {}) });
    });
    return claimed;
  }

  /** At-least-once claims are done once the provider answered (sent, or a final refusal); a failure to say so is only logged (no resend comes: the job is acknowledged). */
  private async markDone(claimed: readonly Candidate[], deviceId?: string): Promise<void> {
    for (const candidate of claimed.filter((one) => this.atLeastOnce(one))) {
      await this.deps.dedup.markSent(this.keyOf(candidate, deviceId)).catch((error: unknown) => this.deps.onEvent('warn', `${this.deps.channel} sent, but its claim could not be marked sent: it stays "sending"`, { tenantId: candidate.user.tenantId, userId: candidate.user.userId, notificationId: candidate.notificationId, error: String(error) }));
    }
  }

  private async releaseAll(message: readonly Candidate[], deviceId?: string): Promise<void> {
    for (const candidate of message) await this.deps.dedup.release(this.keyOf(candidate, deviceId));
  }

  private async sendPush(user: UserRef, message: Candidate[], state: ChannelState, report: ChannelRun): Promise<void> {
    const push = this.deps.push!;
    for (const device of state.devices) {
      const claimed = await this.claimMessage(message, report, device.id);
      if (claimed.length === 0) continue;
      let outcome;
      try {
        outcome = await push.publish(device.endpointArn, device.platform, pushMessageOf(this.itemsOf(claimed)));
      } catch (error) {
        outcome = { status: 'throttled' as const, reason: String(error) };
      }
      if (outcome.status === 'sent') {
        report.messagesSent += 1;
        this.sent(report, claimed, 'sent');
        await this.markDone(claimed, device.id);
      } else if (outcome.status === 'invalid_endpoint') {
        this.sent(report, claimed, 'invalid');
        await this.markDone(claimed, device.id);
        // Never sent to again: the device and its endpoint go; the claims stay (nothing to retry).
        await this.deps.state.deleteDevice(user, device.id);
        await push.deleteEndpoint(device.endpointArn).catch(() => undefined);
        report.devicesRemoved += 1;
        this.deps.onEvent('warn', 'push token invalid or disabled: device removed', { tenantId: user.tenantId, userId: user.userId, deviceId: device.id, platform: device.platform, reason: outcome.reason });
      } else {
        await this.releaseAll(claimed, device.id);
        for (const candidate of claimed) report.failedRecordIds.add(candidate.recordId);
        this.sent(report, claimed, 'failed');
        this.deps.onEvent('warn', 'push throttled by the provider; the job is retried after the backoff', { tenantId: user.tenantId, userId: user.userId, deviceId: device.id, reason: outcome.reason });
      }
    }
  }

  private async sendEmail(user: UserRef, message: Candidate[], address: string, report: ChannelRun): Promise<void> {
    const email = this.deps.email!;
    const claimed = await this.claimMessage(message, report);
    if (claimed.length === 0) return;
    const types = new Set(claimed.map((candidate) => candidate.job.notification.type));
    const type = types.size === 1 ? [...types][0]! : ALL_TYPES;
    const url = `${email.unsubscribeBaseUrl}/unsubscribe?token=${unsubscribeToken({ ...user, type }, email.unsubscribeSecret)}`;
    let outcome;
    try {
      outcome = await email.send(emailMessageOf(address, this.itemsOf(claimed), url));
    } catch (error) {
      outcome = { status: 'throttled' as const, reason: String(error) };
    }
    await this.settle(user, claimed, outcome, report);
  }

  /**
   * One text, its number's opt-out checked already (before the rate limit: a STOP is honoured at
   * once): the claim, the spend guards (counted before the send; unreadable: the record fails, nothing
   * is sent), then `SendTextMessage`. The service's opted-out answer (a STOP that landed meanwhile)
   * puts the number on the list: never retried.
   */
  private async sendSms(user: UserRef, message: Candidate[], phoneNumber: string, report: ChannelRun, nowMs: number): Promise<void> {
    const sms = this.deps.sms!;
    const claimed = await this.claimMessage(message, report);
    if (claimed.length === 0) return;
    let verdict;
    try {
      verdict = await sms.spend.admit(user, smsDayStartMs(nowMs), messageKeyOf(claimed), sms.limits);
    } catch (error) {
      await this.releaseAll(claimed);
      throw error;
    }
    if (verdict !== 'admitted') {
      // Over a spend guard: dropped for good (the claims stay), a WARN says which.
      await this.markDone(claimed);
      claimed.forEach((candidate) => this.skip(report, 'spend_limit', candidate));
      this.deps.onEvent('warn', `sms spend guard reached (${verdict === 'user_limit' ? 'texts per user per day' : 'texts per day in all'}): not sent`, { tenantId: user.tenantId, userId: user.userId, limit: verdict });
      return;
    }
    let outcome;
    try {
      outcome = await sms.provider.send({ to: phoneNumber, text: smsTextOf(this.itemsOf(claimed)) });
    } catch (error) {
      outcome = { status: 'throttled' as const, reason: String(error) };
    }
    if (outcome.status !== 'opted_out') return this.settle(user, claimed, outcome, report);
    await this.markDone(claimed);
    await sms.optOuts.optOut(phoneNumber, nowMs, 'provider');
    claimed.forEach((candidate) => this.skip(report, 'unsubscribed', candidate));
    this.deps.onEvent('warn', 'sms refused: the number is on the service\'s opt-out list; recorded, never retried', { tenantId: user.tenantId, userId: user.userId, reason: outcome.reason });
  }

  /**
   * Claims every notification of the message for one destination; the ones claimed before (sent, or
   * an at-most-once claim) are counted and traced as duplicates.
   */
  private async claimMessage(message: readonly Candidate[], report: ChannelRun, deviceId?: string): Promise<Candidate[]> {
    const claimed = await this.claimAll(message, report, deviceId);
    const duplicates = message.filter((candidate) => !claimed.includes(candidate) && !report.failedRecordIds.has(candidate.recordId));
    report.duplicatesSkipped += duplicates.length;
    this.sent(report, duplicates, 'duplicate');
    return claimed;
  }

  /** An email's or a text's answer: sent, a final refusal (not retried), or throttled (claims given back, the records retried). */
  private async settle(user: UserRef, claimed: Candidate[], outcome: { status: 'sent' | 'rejected' | 'throttled'; reason?: string }, report: ChannelRun): Promise<void> {
    const channel = this.deps.channel;
    if (outcome.status === 'sent') {
      report.messagesSent += 1;
      this.sent(report, claimed, 'sent');
      await this.markDone(claimed);
    } else if (outcome.status === 'rejected') {
      this.sent(report, claimed, 'rejected');
      await this.markDone(claimed);
      this.deps.onEvent('warn', `${channel} rejected by the provider; not retried`, { tenantId: user.tenantId, userId: user.userId, reason: outcome.reason });
    } else {
      await this.releaseAll(claimed);
      for (const candidate of claimed) report.failedRecordIds.add(candidate.recordId);
      this.sent(report, claimed, 'failed');
      this.deps.onEvent('warn', `${channel} throttled by the provider; the job is retried after the backoff`, { tenantId: user.tenantId, userId: user.userId, reason: outcome.reason });
    }
  }
}
