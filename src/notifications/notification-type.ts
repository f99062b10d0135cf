/** Helpers of the catalog's files; the interface a type implements is the core's (`src/core/ports/notification-type.ts`). */
import type { Actor } from '../core/notification.js';
import type { NotificationType } from '../core/ports/notification-type.js';

/** Keeps the literal `detailType` and the data type, so `publishNotification` can check producers' data. */
export function defineNotificationType<Data, const DetailType extends string = string>(definition: NotificationType<Data> & { detailType: DetailType }): NotificationType<Data> & { detailType: DetailType } {
  return definition;
}

export function displayName(actor: Actor): string {
  return actor.name ?? actor.id;
}
