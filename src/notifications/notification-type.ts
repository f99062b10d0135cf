/** Helpers of the catalog's files; the interface a type implements is the core's (`src/core/ports/notification-type.ts`). */
import type { Actor } from '../core/model/notification.js';
import * as z from 'zod';
import type { NotificationType } from '../core/ports/notification-type.js';
import { isSafeLinkUrl } from '../core/model/action-links.js';

/** Keeps the literal `detailType` and the data type, so `publishNotification` can check producers' data. */
export function defineNotificationType<Data, const DetailType extends string = string>(definition: NotificationType<Data> & { detailType: DetailType }): NotificationType<Data> & { detailType: DetailType } {
  return definition;
}

export function displayName(actor: Actor): string {
  return actor.name ?? actor.id;
}

/** A link a producer may pass in `data.url`: http or https only, at most 2,048 characters. */
export const linkUrlSchema = z.string().max(2_048).refine(isSafeLinkUrl, 'must be an http or https URL');

/** A name usable in resource ids and env values: `mention.created` -> `MentionCreated`. */
export function resourceNameOf(detailType: string): string {
  return detailType
    .split(/[^a-zA-Z0-9]/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
