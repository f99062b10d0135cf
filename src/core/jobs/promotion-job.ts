/** The message of one page of a celebrity promotion pass (promotion queue). */
import * as z from 'zod';
import { IDENTIFIER_PATTERN } from '../model/keys.js';

const identifier = z.string().regex(IDENTIFIER_PATTERN);

export const promotionJobSchema = z.object({
  v: z.literal(1),
  tenantId: identifier,
  celebrityId: identifier,
  /** Exclusive start (follower id) of this job's page; absent on the first page. */
  after: identifier.optional(),
});
export type PromotionJob = z.infer<typeof promotionJobSchema>;
