/** zod schemas of the REST boundary (CONTRACT.md, REST). */
import * as z from 'zod';
import { ULID_PATTERN } from '../../core/ids.js';

export const notificationIdSchema = z.string().regex(ULID_PATTERN, 'must be a notification id (ULID)');

export const inboxQuerySchema = z
  .object({
    limit: z
      .string()
      .regex(/^\d+$/, 'must be an integer from 1 to 100')
      .transform(Number)
      .pipe(z.number().int().min(1, 'must be an integer from 1 to 100').max(100, 'must be an integer from 1 to 100'))
      .default(20),
    cursor: z.string().min(1).max(512).optional(),
    since: notificationIdSchema.optional(),
    type: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be a notification type such as mention.created').optional(),
  })
  .strict();

export const noQuerySchema = z.object({}).strict();

export const emptyBodySchema = z.object({}).strict();

/** read-all / seen-all: optionally the newest id the client rendered. */
export const markAllBodySchema = z.object({ upTo: notificationIdSchema.optional() }).strict();

export const markOneReadPathSchema = z.object({ id: notificationIdSchema });
