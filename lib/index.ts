/** The construct library entry (`serverless-notifications/cdk`): the construct, the ready-made app, settings. */
export { NotificationInbox, type NotificationInboxAuth, type NotificationInboxProps, type NotificationInboxSettings } from './notification-inbox.js';
export { buildNotificationsApp, type BuildOptions, type NotificationsApp } from './app.js';
export { CONTEXT_NAMESPACE, ConfigurationError, configFromContext, DEFAULTS, type NotificationsConfig } from './config.js';
export { AppStack } from './stacks/app-stack.js';
export { DataStack } from './stacks/data-stack.js';
export { catalog } from '../src/notifications/index.js';
export type { NotificationType } from '../src/core/ports/notification-type.js';
export { Channels, type ChannelsSettings, type EmailChannelProps, type PushChannelProps, type SmsChannelProps } from './constructs/channels.js';
// The audit trail: the archive bucket (deploy it in a logging account for cross-account delivery) and the stream.
export { AuditArchive, createPseudonymKey, type AuditArchiveProps } from './constructs/audit-archive.js';
export { AuditStream, type AuditDestination, type AuditStreamProps } from './constructs/audit-stream.js';
export { AuditTrail, type AuditTrailProps } from './constructs/audit-trail.js';
