/** Consumer of the promotion queue: each record is one page of a celebrity promotion pass. */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSRecord } from 'aws-lambda';
import { promotionJobSchema } from '../core/jobs/promotion-job.js';
import type { CelebrityPromotionService } from '../core/fanout/celebrity-promotion.js';
import type { SqsBatchHandler } from './fanout-handler.js';

export function createCelebrityPromotionHandler(deps: { service: CelebrityPromotionService; logger: Logger }): SqsBatchHandler {
  const recordHandler = async (record: SQSRecord): Promise<void> => {
    const parsed = promotionJobSchema.safeParse(JSON.parse(record.body));
    if (!parsed.success) {
      logger.error('promotion job rejected', { messageId: record.messageId, issues: parsed.error.issues });
      throw parsed.error;
    }
    const result = await deps.service.runPage(parsed.data);
    logger.info('promotion page written', { messageId: record.messageId, tenantId: parsed.data.tenantId, celebrityId: parsed.data.celebrityId, ...result });
  };
  const { logger } = deps;
  // One processor per invocation: its state is per batch, and the local runtime runs two batches of a queue at once.
  return (event, context) => processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false });
}
