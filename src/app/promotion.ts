/** The celebrity promotion function (one page of a new celebrity's followers per job): its config and its composition. */
import { Logger } from '@aws-lambda-powertools/logger';
import { SqsPromotionQueue } from '../adapters/sqs/sqs-promotion-queue.js';
import { CelebrityPromotionService } from '../core/fanout/celebrity-promotion.js';
import { DEFAULT_CELEBRITY_THRESHOLD } from '../core/model/tier.js';
import type { Env } from '../env.js';
import { createCelebrityPromotionHandler } from '../handlers/celebrity-promotion-handler.js';
import { integer, parseEnv, required } from './config-parsing.js';
import { followGraphRepository } from './follow-graph.js';
import { sqsClient } from './parts-queues.js';
import { createParts, type Parts } from './parts.js';

export interface PromotionConfig {
  graphTable: string;
  promotionQueueUrl: string;
  /** The pass makes a pending flip itself when the count calls for it (the same rule as fan-out). */
  celebrityThreshold: number;
}

export function promotionConfigFromEnv(env: Env): PromotionConfig {
  const parsed = parseEnv('celebrity-promotion', { GRAPH_TABLE: required, PROMOTION_QUEUE_URL: required, CELEBRITY_THRESHOLD: integer(DEFAULT_CELEBRITY_THRESHOLD, 1) }, env);
  return { graphTable: parsed.GRAPH_TABLE, promotionQueueUrl: parsed.PROMOTION_QUEUE_URL, celebrityThreshold: parsed.CELEBRITY_THRESHOLD };
}

export function composePromotion(parts: Parts, config: PromotionConfig) {
  const service = new CelebrityPromotionService({
    graph: followGraphRepository(parts, config.graphTable),
    queue: new SqsPromotionQueue(sqsClient(parts), config.promotionQueueUrl),
    celebrityThreshold: config.celebrityThreshold,
  });
  return createCelebrityPromotionHandler({ service, logger: parts.logger });
}

export function promotionFunction(env: Env) {
  return composePromotion(createParts({ logger: new Logger({ serviceName: 'celebrity-promotion' }) }), promotionConfigFromEnv(env));
}
