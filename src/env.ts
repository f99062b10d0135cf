/**
 * Every environment variable the functions and the local runtime read, named once. The CDK app
 * (`lib/`) sets them, `src/table-specs.ts` binds each table to its variable, and each function's
 * config (beside its composition in `src/app/`) parses them. No imports: `lib/` reads it.
 */
const ENV_NAMES = [
  // Tables (src/table-specs.ts binds each table to its variable).
  'INBOX_TABLE',
  'READ_MARKS_TABLE',
  'CONNECTIONS_TABLE',
  'GRAPH_TABLE',
  'IDEMPOTENCY_TABLE',
  // Queues.
  'URGENT_QUEUE_URL',
  'INFO_QUEUE_URL',
  'PROMOTION_QUEUE_URL',
  'INTAKE_QUEUE_ARN',
  'RELEASE_QUEUE_ARN',
  'PUSH_QUEUE_URL',
  'EMAIL_QUEUE_URL',
  'SMS_QUEUE_URL',
  'ALERTS_QUEUE_URL',
  'CHANNEL_QUEUE_ARN',
  // Channels (push: SNS mobile push; email: SES v2).
  'CHANNEL',
  'SNS_PLATFORM_APPLICATION_APNS',
  'SNS_PLATFORM_APPLICATION_APNS_SANDBOX',
  'SNS_PLATFORM_APPLICATION_FCM',
  'SES_FROM_ADDRESS',
  'SES_IDENTITY_ARN',
  'SES_CONFIGURATION_SET',
  // SMS: AWS End User Messaging SMS.
  'SMS_ORIGINATION_IDENTITY',
  'SMS_CONFIGURATION_SET',
  'SMS_DAILY_LIMIT_PER_USER',
  'SMS_DAILY_LIMIT',
  'SMS_ENDPOINT',
  // Two-way SMS (the inbound function): the topic it reads, the service's opt-out list, who answers keywords and with what.
  'SMS_INBOUND_TOPIC_ARN',
  'SMS_OPT_OUT_LIST',
  'SMS_SELF_MANAGED_OPT_OUTS',
  'SMS_ANSWER_HELP',
  'SMS_ANSWER_STOP',
  'SMS_ANSWER_START',
  'UNSUBSCRIBE_SECRET',
  'UNSUBSCRIBE_BASE_URL',
  'CHANNEL_RATE_LIMIT_PER_WINDOW',
  'CHANNEL_PARALLELISM',
  'SNOOZE_QUEUE_ARN',
  // Privacy jobs (erase and export).
  'PRIVACY_JOB_QUEUE_URL',
  'EXPORT_BUCKET',
  'ERASURE_GRACE_MS',
  'TOMBSTONE_TTL_DAYS',
  // Scheduler.
  'SCHEDULE_GROUP_NAME',
  'SCHEDULER_ROLE_ARN',
  'SCHEDULER_DLQ_ARN',
  // WebSocket management API.
  'WS_MANAGEMENT_ENDPOINT',
  // Auth and REST.
  'CURSOR_SECRET',
  'DELIVERY_JOB_SECRET',
  'SNOOZE_JOB_SECRET',
  'TENANT_CLAIM',
  'FIXED_TENANT',
  'CORS_ALLOW_ORIGINS',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'JWKS_URL',
  // Settings.
  'NOTIFICATION_TYPE',
  'DELIVERY_MODE',
  'FEED_SHARDS',
  'INBOX_TTL_DAYS',
  'CELEBRITY_THRESHOLD',
  'PREFERENCES_CACHE_TTL_MS',
  'SEND_AT_MIN_DELAY_MS',
  'RATE_LIMIT_PER_MINUTE',
  'RATE_LIMIT_WINDOW_MS',
  'HANDSHAKE_GRACE_SECONDS',
  'DELIVERY_RECORD_TTL_SECONDS',
  'DELIVERY_PARALLELISM',
  'CONNECTIONS_PER_JOB',
  'TRACE_TTL_DAYS',
  // Audit trail (src/app/audit/aws.ts): Firehose stream, KMS HMAC key of the pseudonyms, backlog queue.
  'AUDIT_STREAM_NAME',
  'AUDIT_KEY_ARN',
  'AUDIT_BACKLOG_QUEUE_URL',
  'RETRACTIONS_CACHE_TTL_MS',
  // Local runtime only (npm start).
  'HOST',
  'PORT',
  'WS_PORT',
  'DATA_DIR',
  'INFO_BATCH_WINDOW_MS',
  'FUNCTION_TIMEOUT_MS',
  'QUEUE_VISIBILITY_TIMEOUT_MS',
  'MAX_RECEIVE_COUNT',
  'INTAKE_BACKLOG_LIMIT',
  'INTAKE_BACKLOG_SECONDS',
  'LOG_LEVEL',
  'CHANNEL_BATCH_WINDOW_MS',
  'SNS_ENDPOINT',
  'SES_ENDPOINT',
  'LOCAL_FUNCTIONS',
  // The least-privilege check's recording (src/local/aws-calls/): the directory, and what names this runtime in it.
  'RECORD_AWS_CALLS',
  'RECORD_AWS_CALLS_LABEL',
] as const;

export type EnvName = (typeof ENV_NAMES)[number];

/** `ENV.GRAPH_TABLE === 'GRAPH_TABLE'`: names to type-check, never to retype. */
export const ENV = Object.fromEntries(ENV_NAMES.map((name) => [name, name])) as { readonly [Name in EnvName]: Name };

export type Env = Readonly<Partial<Record<string, string | undefined>>>;

/** The env var of each fan-out queue URL (the CDK app binds exactly the ones `fanOutQueueNeeds` names). */
export const FAN_OUT_QUEUE_URL_ENV = { urgent: ENV.URGENT_QUEUE_URL, info: ENV.INFO_QUEUE_URL, promotion: ENV.PROMOTION_QUEUE_URL } as const;
