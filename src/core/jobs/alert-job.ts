/**
 * A post's alert job (core/channels/post-alerts.ts): the fan-out puts one on the alerts queue per
 * post of a type with `followerAlerts`; each job pushes one page of the actor's alert subscribers
 * and enqueues the next page. Signed like a delivery job.
 */
import * as z from 'zod';
import { deliveryJobSchema } from './delivery-job.js';

export const alertJobSchema = deliveryJobSchema.omit({ target: true, retracted: true, comeback: true }).extend({
  alerts: z
    .object({
      actorId: deliveryJobSchema.shape.notification.shape.actor.shape.id,
      /** The post's arrival: its notification ids' time part. */
      arrivalMs: z.number().int().min(0),
      /** How the post was fanned out: celebrity (one feed id for all) or ordinary (an id per follower). */
      mode: z.enum(['ordinary', 'celebrity']),
      /** Exclusive start of this page (a subscriber id). */
      after: z.string().min(1).max(256).optional(),
      page: z.number().int().min(0).max(1_000_000),
    })
    .strict(),
});
export type AlertJob = z.infer<typeof alertJobSchema>;

export interface AlertJobQueue {
  enqueue(job: AlertJob): Promise<void>;
}
