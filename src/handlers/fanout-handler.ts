/**
 * Fan-out consumer of one notification type's intake queue: SQS batch in, partial batch response
 * out. Per record: validate (zod) -> FanOutService.process once per event (Powertools idempotency
 * keyed by type + tenant + event id) -> a failed record is reported, never thrown for the batch.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyAlreadyInProgressError, IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { EventValidationError, validateEventBridgeBody, type NotificationEvent } from '../core/events.js';
import type { FanOutService, FanOutSummary } from '../core/fanout-service.js';
import { eventAtSendTime, type SendAtDeferral } from '../core/send-at.js';
import type { NotificationType } from '../core/ports/notification-type.js';

/** Long enough to cover SQS retries and a same-day DLQ redrive; later redrives re-enqueue jobs (delivery dedups). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3_600;

export class WrongIntakeQueueError extends Error {
  override readonly name = 'WrongIntakeQueueError';
}

export interface FanOutHandlerDeps {
  notificationType: NotificationType;
  findType(detailType: string): NotificationType | undefined;
  service: FanOutService;
  logger: Logger;
  /** Omitted only in unit tests of the handler; every deployment and the local runtime pass one. */
  persistenceStore?: BasePersistenceLayer;
  /** Scheduled sends: defers an event whose `sendAt` is ahead (before idempotency, so it runs again at `sendAt`). */
  sendAt?: SendAtDeferral;
}

export type SqsBatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export function createFanOutHandler(deps: FanOutHandlerDeps): SqsBatchHandler {
  const { notificationType, service, logger } = deps;
  const idempotencyConfig = new IdempotencyConfig({ eventKeyJmesPath: '[type, tenantId, eventId]', expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS });
  const processEvent = (event: NotificationEvent): Promise<FanOutSummary> => service.process(event, notificationType);
  // The record is written INPROGRESS before the work and COMPLETED after it; if the work throws
  // (e.g. the enqueue failed) the record is deleted, so the retry redoes the writes and the jobs.
  const processOnce = deps.persistenceStore
    ? makeIdempotent(processEvent, { persistenceStore: deps.persistenceStore, config: idempotencyConfig, keyPrefix: 'fanout' })
    : processEvent;

  const recordHandler = async (record: SQSRecord): Promise<void> => {
    let event: NotificationEvent;
    try {
      event = validateEventBridgeBody(record.body, deps.findType).event;
    } catch (error) {
      if (error instanceof EventValidationError) {
        logger.error('event rejected: invalid envelope or data', { messageId: record.messageId, reason: error.message, details: error.details });
      }
      throw error;
    }
    if (event.type !== notificationType.detailType) {
      logger.error('event rejected: wrong intake queue', { messageId: record.messageId, type: event.type });
      throw new WrongIntakeQueueError(`${event.type} arrived on the ${notificationType.detailType} intake queue`);
    }
    if (deps.sendAt) {
      const deferral = await deps.sendAt.deferIfLater(event, record.body);
      if (deferral.deferred) {
        logger.info('event scheduled for sendAt', { messageId: record.messageId, tenantId: event.tenantId, eventId: event.eventId, sendAt: event.sendAt, schedule: deferral.scheduleName, outcome: deferral.outcome });
        return;
      }
    }
    let summary: FanOutSummary;
    try {
      summary = await processOnce(eventAtSendTime(event));
    } catch (error) {
      // Retried after the visibility timeout; at maxReceiveCount it moves to the DLQ: say why, above DEBUG.
      // A concurrent copy of the same event still running is expected (duplicate delivery): INFO.
      const log = error instanceof IdempotencyAlreadyInProgressError ? logger.info.bind(logger) : logger.warn.bind(logger);
      log('event processing failed; it will be retried or dead-lettered', {
        messageId: record.messageId,
        tenantId: event.tenantId,
        eventId: event.eventId,
        receiveCount: record.attributes.ApproximateReceiveCount,
        reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
      throw error;
    }
    logger.info('event fanned out', { messageId: record.messageId, tenantId: event.tenantId, eventId: event.eventId, ...summary });
  };

  return async (event, context) => {
    idempotencyConfig.registerLambdaContext(context);
    // One processor per invocation: its state is per batch, and the local runtime runs two batches of a queue at once.
    return processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false });
  };
}
