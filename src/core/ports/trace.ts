/**
 * Port: the delivery trace, the answer to "why didn't user X get notification Y". Every stage of an
 * event writes one short, expiring record per (event, recipient) — or per event for event-wide
 * outcomes (accepted, invalid, dead-lettered) — with what it decided. Writing it never fails a delivery.
 */

export type TraceStage = 'intake' | 'fanout' | 'gate' | 'delivery' | 'release' | 'dlq' | 'push' | 'email' | 'sms';

export type TraceOutcome =
  | 'accepted'
  | 'invalid'
  | 'deferred'
  | 'muted'
  | 'inbox_written'
  /** A post copied into a follower's inbox by their follow, processed after the post but arrived before it. */
  | 'backfilled'
  | 'celebrity_feed'
  /** An ordinary account's post (event-wide): written to the followers its fan-out listed. */
  | 'follower_inboxes'
  /** An ordinary account's post (event-wide): no follower counted yet; logged for the follows that arrived before it. */
  | 'no_followers'
  /** A listed follower the post is not for: they followed after it arrived, or had unfollowed. */
  | 'not_following'
  /** A follow or unfollow (for the follower): what it did to the pair, or that a later record stands. */
  | 'graph_updated'
  | 'admitted'
  | 'quiet_hours'
  | 'rate_limited'
  | 'live_delivery_off'
  | 'preferences_unavailable'
  | 'delivered_live'
  | 'deduplicated'
  | 'offline'
  | 'push_failed'
  | 'released'
  | 'dropped'
  | 'dead_lettered'
  // Push / email / SMS (src/core/channels/channel-delivery.ts) and erasure drops (the audit trail, src/core/audit/).
  | 'sent'
  | 'no_consent'
  | 'no_device'
  | 'no_email_address'
  | 'unsubscribed'
  | 'channel_off'
  | 'send_failed'
  | 'provider_rejected'
  | 'invalid_endpoint'
  /** SMS: a spend guard (texts per user per day, or per day in all) refused it. */
  | 'spend_limit'
  /** Escalation (core/channels/escalation.ts): sent on the escalation channel; skipped (seen or read meanwhile); cancelled (archived, deleted, snoozed, retracted); off by the user's switch. */
  | 'escalated'
  | 'escalation_seen'
  | 'escalation_read'
  | 'escalation_cancelled'
  | 'escalation_off'
  | 'erased';

export interface TraceEntry {
  tenantId: string;
  eventId: string;
  /** Omitted for an event-wide record (intake, celebrity feed, dead-lettered). */
  userId?: string;
  /** An event-wide record about one account (the celebrity whose feed got the post): the erasure finds it by this, never by `detail`. */
  actorId?: string;
  /** A follow or unfollow's record (kept under the follower): the account followed, so the erasure of either side removes it. */
  followeeId?: string;
  stage: TraceStage;
  outcome: TraceOutcome;
  atMs: number;
  /** A short reason or figure: "until 2026-01-01T07:00:00Z", "2 connections", a validation error. */
  detail?: string;
  /** The event's own time, for the end-to-end latency of a live push. */
  eventTimeMs?: number;
  /** The recipient's notification, where the stage knows it (audit trail: hashed with the user's salt). */
  notificationId?: string;
}

export interface TraceRecorder {
  /** Writes the entries of one stage of one batch (one batched write); throws on a storage failure. */
  record(entries: readonly TraceEntry[]): Promise<void>;
}

export interface TraceReader {
  /** Every record of the event for this user and the event-wide ones, oldest first. */
  explain(tenantId: string, userId: string, eventId: string): Promise<TraceEntry[]>;
}

/** A recorder whose failures are reported to `onError` and swallowed: tracing never fails the delivery path. */
export function neverFailing(recorder: TraceRecorder, onError: (error: unknown, count: number) => void): TraceRecorder {
  return {
    async record(entries) {
      if (entries.length === 0) return;
      try {
        await recorder.record(entries);
      } catch (error) {
        onError(error, entries.length);
      }
    },
  };
}

/** Several recorders as one (the trace table and the metrics both observe every entry). */
export function fanOutTo(recorders: readonly TraceRecorder[]): TraceRecorder {
  return { record: async (entries) => void (await Promise.all(recorders.map((recorder) => recorder.record(entries)))) };
}

/** One line per record, for the `explain` CLI and route. */
export function formatTrace(entries: readonly TraceEntry[]): string {
  if (entries.length === 0) return 'no trace records (expired, never recorded, or another tenant / user / event id)';
  return entries
    .map((entry) => `${new Date(entry.atMs).toISOString()}  ${entry.stage.padEnd(8)} ${entry.outcome}${entry.userId ? '' : ' (event)'}${entry.detail ? `  ${entry.detail}` : ''}`)
    .join('\n');
}
