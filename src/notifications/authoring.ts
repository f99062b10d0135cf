/**
 * What a team writes its own notification types against (`serverless-notifications/catalog`): the
 * helper, the port's types and the id rule. Light on purpose: the team's catalog module is bundled
 * into every function, so this entry pulls in neither aws-cdk-lib nor the built-in types
 * (those are `serverless-notifications/catalog/built-in`).
 */
export { defineNotificationType, displayName } from './notification-type.js';
export type { Audience, GraphEffect, NotificationType } from '../core/ports/notification-type.js';
export type { Actor } from '../core/model/notification.js';
export type { Priority } from '../core/jobs/delivery-job.js';
export { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '../core/model/keys.js';
