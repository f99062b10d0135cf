/**
 * The catalog: the only list of notification types. The CDK app (one rule, intake queue and fan-out
 * function per type) and the local runtime both iterate it. Adding a type = adding a file + a line here.
 */
import { commentCreated } from './comment-created.js';
import { followCreated } from './follow-created.js';
import { followDeleted } from './follow-deleted.js';
import { mentionCreated } from './mention-created.js';
import type { NotificationType } from '../core/ports/notification-type.js';
import { notificationRetracted } from './notification-retracted.js';
import { postPublished } from './post-published.js';

export { resourceNameOf } from './notification-type.js';

/** The package's types, for a team catalog that keeps some (`serverless-notifications/catalog/built-in`). */
export { commentCreated, followCreated, followDeleted, mentionCreated, postPublished };

/** The catalog with each type's literal detail type and data (for typed producers). */
export const catalogTypes = [mentionCreated, commentCreated, postPublished, followCreated, followDeleted, notificationRetracted] as const;
export const catalog: readonly NotificationType[] = catalogTypes;

const byDetailType = new Map(catalog.map((type) => [type.detailType, type]));

export function findNotificationType(detailType: string): NotificationType | undefined {
  return byDetailType.get(detailType);
}
