/**
 * The business metrics' names (EMF), shared by the functions (src/app/parts-observability.ts) and
 * the CDK dashboard and alarms (lib/constructs/operations.ts). No dependency, so `lib/` may import it.
 */
export const METRICS_NAMESPACE = 'ServerlessNotifications';
/** The `service` dimension of every business metric (one value for the whole system, so graphs sum functions). */
export const METRICS_SERVICE = 'notifications';

export const BUSINESS_METRICS = {
  accepted: 'EventsAccepted',
  invalid: 'EventsInvalid',
  notificationsWritten: 'NotificationsWritten',
  celebrityFeedWrites: 'CelebrityFeedEvents',
  deliveredLive: 'LivePushesDelivered',
  deduplicated: 'LivePushesDeduplicated',
  /** With a `Reason` dimension: muted, quiet_hours, rate_limited, live_delivery_off, preferences_unavailable, dropped. */
  suppressed: 'LivePushesSuppressed',
  deadLettered: 'MessagesDeadLettered',
  /** Milliseconds from the event's time to its live push. */
  endToEndLatency: 'EndToEndLatency',
} as const;

export const SUPPRESSION_REASONS = ['muted', 'quiet_hours', 'rate_limited', 'live_delivery_off', 'preferences_unavailable', 'dropped'] as const;
