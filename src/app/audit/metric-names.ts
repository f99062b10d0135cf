/** The audit trail's metrics (EMF, namespace METRICS_NAMESPACE), shared by the writer and the CDK alarms. No dependency, so `lib/` may import it. */
export const AUDIT_METRICS = {
  /** Records the sink refused (or that could not be pseudonymized yet), put on the backlog queue: a gap in the archive until drained. */
  buffered: 'AuditRecordsBuffered',
  /** Records neither written nor buffered: only in the function's log (ERROR line). Alarm at 1. */
  unbuffered: 'AuditRecordsUnbuffered',
} as const;
