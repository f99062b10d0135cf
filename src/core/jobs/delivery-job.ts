/**
 * The message the fan-out step puts on a priority delivery queue and the delivery consumer reads.
 * Recipients of one job share the rendered notification; each has its own deterministic id.
 */
import * as z from 'zod';
import { CONNECTION_ID_PATTERN, IDENTIFIER_PATTERN } from '../model/keys.js';
import { ULID_PATTERN } from '../model/ids.js';

/** One BatchGetItem (100 keys) resolves the presence of a whole job's recipients. */
export const MAX_RECIPIENTS_PER_JOB = 100;

/** Online subscribers one celebrity job (and so one invocation) pushes to at most. */
export const CONNECTIONS_PER_JOB = 1_000;

const identifier = z.string().regex(IDENTIFIER_PATTERN);
const notificationId = z.string().regex(ULID_PATTERN);

export const prioritySchema = z.enum(['urgent', 'info']);
export type Priority = z.infer<typeof prioritySchema>;

const renderedNotificationSchema = z.object({
  type: z.string(),
  createdAt: z.string(),
  actor: z.object({ id: identifier }).catchall(z.unknown()),
  title: z.string(),
  body: z.string(),
  data: z.record(z.string(), z.unknown()),
  /** Sanitized action links of the type (http/https only), shown by the live push. */
  actionUrl: z.string().max(2_048).optional(),
  actions: z.array(z.object({ label: z.string().max(40), url: z.string().max(2_048).optional(), actionId: z.string().max(64).optional() })).max(2).optional(),
});
export type RenderedNotification = z.infer<typeof renderedNotificationSchema>;

export const deliveryJobSchema = z.object({
  v: z.literal(1),
  tenantId: identifier,
  /** Producer event id, for logs and dedup keys. */
  eventId: z.string().min(1).max(256),
  priority: prioritySchema,
  notification: renderedNotificationSchema,
  /**
   * A retraction job (core/fanout/retraction.ts): the target's connections get `retracted` with their ids
   * of the withdrawn event (`notification.type` is its type, no content); no gate, no ledger claim.
   */
  retracted: z.object({ eventId: z.string().min(1).max(256), arrivalMs: z.number().int().min(0) }).strict().optional(),
  /**
   * A snooze comeback's push (core/actions/snooze-returns.ts): what it brings back. Delivery drops it
   * when that notification's event was retracted since the snooze.
   */
  comeback: z.object({ rootId: notificationId, rootActor: identifier.optional() }).strict().optional(),
  target: z.discriminatedUnion('kind', [
    /** Write fan-out and direct recipients: push to these users' connections. */
    z.object({
      kind: z.literal('recipients'),
      recipients: z.array(z.object({ userId: identifier, notificationId })).min(1).max(MAX_RECIPIENTS_PER_JOB),
    }),
    /**
     * Celebrity post: push to the actor's online subscribers only. Without `shard` (as the fan-out
     * enqueues it) the consumer splits it into one job per subscriber shard; a shard job pushes one
     * page of at most CONNECTIONS_PER_JOB connections after `after` and enqueues the next page (`hop` + 1).
     */
    z.object({
      kind: z.literal('onlineFollowers'),
      actorId: identifier,
      notificationId,
      shard: z.number().int().min(0).max(1_000).optional(),
      after: z.string().regex(CONNECTION_ID_PATTERN).optional(),
      hop: z.number().int().min(0).optional(),
    }),
  ]),
});
export type DeliveryJob = z.infer<typeof deliveryJobSchema>;

