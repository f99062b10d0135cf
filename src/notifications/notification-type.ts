/** What one notification type declares. One file per type in this folder; `index.ts` lists them. */
import type { z } from 'zod';
import type { Actor } from '../core/notification.js';
import type { Priority } from '../core/delivery-job.js';

export type Audience =
  /** The event's `recipients`. */
  | 'recipients'
  /** The followers of the event's actor (two-tier fan-out), plus any direct `recipients`. */
  | 'followersOfActor'
  /** No notification (graph-only events). */
  | 'none';

export interface NotificationType<Data = Record<string, unknown>> {
  /** EventBridge DetailType, also the `type` clients see. */
  detailType: string;
  dataSchema: z.ZodType<Data>;
  defaultPriority: Priority;
  audience: Audience;
  /** Info notifications of a digestible type that land in one batching window collapse into one digest. */
  digestible: boolean;
  /** Whether an urgent notification of this type is pushed during the user's quiet hours. Default true. */
  urgentBypassesQuietHours?: boolean;
  /** Side effect on the follow graph, applied before fan-out. */
  graphEffect?: 'follow' | 'unfollow';
  /** Recipients implied by the data (e.g. the followee of a follow), added to the envelope's. */
  recipientsFromData?(data: Data): string[];
  render(input: { actor: Actor; data: Data }): { title: string; body: string };
}

export function defineNotificationType<Data>(definition: NotificationType<Data>): NotificationType<Data> {
  return definition;
}

export function displayName(actor: Actor): string {
  return actor.name ?? actor.id;
}
