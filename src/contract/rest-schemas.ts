/** zod schemas of the REST boundary (CONTRACT.md, REST). */
import * as z from 'zod';
import { TYPE_NAME_PATTERN, ULID_PATTERN } from './identifiers.js';
import { itemActionSchema } from './wire-schemas.js';

/** Ids per bulk call: one BatchGetItem of the own partition checks them all. */
export const MAX_BULK_IDS = 100;

export const notificationIdSchema = z.string().regex(ULID_PATTERN, 'must be a notification id (ULID)');

/** One type or several, comma-separated (`type=mention.created,comment.created`), at most 20. */
const typeListSchema = z
  .string()
  .max(1_300)
  .transform((value) => value.split(','))
  .pipe(z.array(z.string().regex(TYPE_NAME_PATTERN, 'must be a notification type such as mention.created')).min(1).max(20));

const booleanQuerySchema = z.enum(['true', 'false'], 'must be true or false').transform((value) => value === 'true');

const categorySchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a category such as social');

/** Tags, comma-separated: a type matches when it has every one. */
const tagListSchema = z
  .string()
  .max(340)
  .transform((value) => value.split(','))
  .pipe(z.array(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a tag such as direct')).min(1).max(10));

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
    type: typeListSchema.optional(),
    read: booleanQuerySchema.optional(),
    archived: booleanQuerySchema.optional(),
    category: categorySchema.optional(),
    tags: tagListSchema.optional(),
  })
  .strict();

/** `GET /notifications/counts`: optionally the counts of one tab (a category, or types). */
export const countsQuerySchema = z.object({ category: categorySchema.optional(), type: typeListSchema.optional() }).strict();

/** `POST /notifications/{id}/snooze`. */
export const snoozeBodySchema = z.object({ until: z.iso.datetime({ offset: true }) }).strict();

/** `POST /notifications/bulk`: one action on up to 100 ids. */
export const bulkBodySchema = z
  .object({
    action: itemActionSchema,
    ids: z.array(notificationIdSchema).min(1).max(MAX_BULK_IDS, `at most ${MAX_BULK_IDS} ids`),
  })
  .strict();

export const noQuerySchema = z.object({}).strict();

export const emptyBodySchema = z.object({}).strict();

/** read-all / seen-all: optionally the newest id the client rendered. */
export const markAllBodySchema = z.object({ upTo: notificationIdSchema.optional() }).strict();

export const markOneReadPathSchema = z.object({ id: notificationIdSchema });
