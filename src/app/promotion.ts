/** Composition of the celebrity promotion function: one page of a new celebrity's followers per job. */
import { Logger } from '@aws-lambda-powertools/logger';
import { SqsPromotionQueue } from '../adapters/sqs/sqs-promotion-queue.js';
import { CelebrityPromotionService } from '../core/fanout/celebrity-promotion.js';
import { createCelebrityPromotionHandler } from '../handlers/celebrity-promotion-handler.js';
import { promotionConfigFromEnv, type Env, type PromotionConfig } from './config.js';
import { sqsClient } from './parts-queues.js';
import { followGraphRepository } from './follow-graph.js';
import { createParts, type Parts } from './parts.js';

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
