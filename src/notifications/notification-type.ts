/** Helpers of the catalog's files; the interface a type implements is the core's (`src/core/ports/notification-type.ts`). */
import type { Actor } from '../core/notification.js';
import type { NotificationType } from '../core/ports/notification-type.js';

export function defineNotificationType<Data>(definition: NotificationType<Data>): NotificationType<Data> {
  return definition;
}

export function displayName(actor: Actor): string {
  return actor.name ?? actor.id;
}
