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
import { EventValidationError, validateEventBridgeBody, type NotificationEvent } from '../core/fanout/events.js';
import { FAN_OUT_IDEMPOTENCY_PREFIX } from '../core/model/keys.js';
import type { FanOutService } from '../core/fanout/fanout-service.js';
import type { FanOutSummary } from '../core/fanout/fanout-summary.js';
import { eventAtSendTime, type SendAtDeferral } from '../core/fanout/send-at.js';
import { usersNamedBy, type ErasureLookahead } from '../core/fanout/erasure-lookahead.js';
import type { ArrivalLookahead } from '../core/fanout/arrival-lookahead.js';
import type { NotificationType } from '../core/ports/notification-type.js';
import type { TraceEntry, TraceRecorder } from '../core/ports/trace.js';
import { finalAttempt, traceIdsOf } from './dead-letter.js';

/** Long enough to cover SQS retries and a same-day DLQ redrive; later redrives re-enqueue jobs (delivery dedups). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3_600;

export class WrongIntakeQueueError extends Error {
  override readonly name = 'WrongIntakeQueueError';
}

export interface FanOutHandlerDeps {
  notificationType: NotificationType;
  findType(detailType: string): NotificationType | undefined;
  service: Pick<FanOutService, 'process'>;
  logger: Logger;
  /** Omitted only in unit tests of the handler; every deployment and the local runtime pass one. */
  persistenceStore?: BasePersistenceLayer;
  /** Scheduled sends: defers an event whose `sendAt` is ahead (before idempotency, so it runs again at `sendAt`). */
  sendAt?: SendAtDeferral;
  /** The delivery trace (never throws): the intake stage's accepted / invalid / deferred / dead-lettered. */
  trace?: TraceRecorder;
  /** The queue's maxReceiveCount: a record failing its last receive is logged at WARN as dead-lettered. */
  maxReceiveCount?: number;
  /** Called once per batch after the trace is written (the composition flushes its metrics here). */
  afterBatch?: () => void;
  /** Runs one event's work in an X-Ray subsegment annotated with tenant and event id. */
  traced?: <T>(name: string, ids: { tenantId: string; eventId: string }, work: () => Promise<T>) => Promise<T>;
  /** The service's erasure check, started while the idempotency record is written (one round trip less). */
  erasureLookahead?: Pick<ErasureLookahead, 'start' | 'forget'>;
  /** The service's arrival stamp, started beside the idempotency record for events it stamps first (one round trip less). */
  arrivalLookahead?: Pick<ArrivalLookahead, 'start'>;
}

export type SqsBatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** The record's SentTimestamp (set by SQS when the rule delivered the event): when the system accepted it. */
function intakeOf(record: SQSRecord): { intakeMs?: number } {
  const sent = Number(record.attributes.SentTimestamp);
  return Number.isSafeInteger(sent) && sent > 0 ? { intakeMs: sent } : {};
}

export function createFanOutHandler(deps: FanOutHandlerDeps): SqsBatchHandler {
  const { notificationType, service, logger } = deps;
  const idempotencyConfig = new IdempotencyConfig({ eventKeyJmesPath: '[type, tenantId, eventId]', expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS });
  // The events the service really processed: one the idempotency record answered instead is a duplicate (trace: deduplicated).
  const processed = new WeakSet<NotificationEvent>();
  const processEvent = (event: NotificationEvent): Promise<FanOutSummary> => {
    processed.add(event);
    return service.process(event, notificationType);
  };
  // The record is written INPROGRESS before the work and COMPLETED after it; if the work throws
  // (e.g. the enqueue failed) the record is deleted, so the retry redoes the writes and the jobs.
  const processOnce = deps.persistenceStore
    ? makeIdempotent(processEvent, { persistenceStore: deps.persistenceStore, config: idempotencyConfig, keyPrefix: FAN_OUT_IDEMPOTENCY_PREFIX })
    : processEvent;

  const recordHandler = async (record: SQSRecord, trace: TraceEntry[]): Promise<void> => {
    let event: NotificationEvent;
    try {
      event = { ...validateEventBridgeBody(record.body, deps.findType).event, ...intakeOf(record) };
    } catch (error) {
      if (error instanceof EventValidationError) {
        logger.error('event rejected: invalid envelope or data', { messageId: record.messageId, reason: error.message, details: error.details });
        const ids = traceIdsOf(record.body);
        if (ids) trace.push({ ...ids, stage: 'intake', outcome: 'invalid', atMs: Date.now(), detail: error.message });
      }
      throw error;
    }
    if (event.type !== notificationType.detailType) {
      logger.error('event rejected: wrong intake queue', { messageId: record.messageId, type: event.type });
      throw new WrongIntakeQueueError(`${event.type} arrived on the ${notificationType.detailType} intake queue`);
    }
    if (deps.sendAt) {
      const deferral = await deps.sendAt.deferIfLater(event, record.body, notificationType.graphEffect ? notificationType.followeeOf(event.data) : undefined);
      if (deferral.deferred) {
        logger.info('event scheduled for sendAt', { messageId: record.messageId, tenantId: event.tenantId, eventId: event.eventId, sendAt: event.sendAt, schedule: deferral.scheduleName, outcome: deferral.outcome });
        trace.push({ tenantId: event.tenantId, eventId: event.eventId, stage: 'intake', outcome: 'deferred', atMs: Date.now(), detail: `sendAt ${event.sendAt}` });
        return;
      }
    }
    trace.push({ tenantId: event.tenantId, eventId: event.eventId, stage: 'intake', outcome: 'accepted', atMs: Date.now(), eventTimeMs: event.timeMs, detail: event.type });
    const atSendTime = eventAtSendTime(event);
    const named = deps.erasureLookahead ? usersNamedBy(atSendTime, notificationType) : [];
    deps.erasureLookahead?.start(atSendTime.tenantId, named);
    const dropArrival = deps.arrivalLookahead?.start(atSendTime, notificationType);
    let summary: FanOutSummary;
    try {
      summary = deps.traced ? await deps.traced('fan-out', event, () => processOnce(atSendTime)) : await processOnce(atSendTime);
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
    } finally {
      deps.erasureLookahead?.forget(atSendTime.tenantId, named);
      dropArrival?.();
    }
    if (deps.persistenceStore && !processed.has(atSendTime)) {
      trace.push({ tenantId: event.tenantId, eventId: event.eventId, stage: 'intake', outcome: 'deduplicated', atMs: Date.now(), detail: 'a duplicate of an event already fanned out (idempotency record): nothing written again' });
    }
    logger.info('event fanned out', { messageId: record.messageId, tenantId: event.tenantId, eventId: event.eventId, ...summary });
  };

  return async (event, context) => {
    idempotencyConfig.registerLambdaContext(context);
    const trace: TraceEntry[] = [];
    const failures = new Map<string, unknown>();
    const handle = async (record: SQSRecord) => {
      try {
        await recordHandler(record, trace);
      } catch (error) {
        failures.set(record.messageId, error);
        throw error;
      }
    };
    // One processor per invocation: its state is per batch, and the local runtime runs two batches of a queue at once.
    const response = await processPartialResponse(event, handle, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false });
    for (const record of event.Records) {
      const error = failures.get(record.messageId);
      if (error === undefined || !finalAttempt(record, deps.maxReceiveCount)) continue;
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      logger.warn('event dead-lettered: last receive failed, the queue moves it to its DLQ', { messageId: record.messageId, queue: record.eventSourceARN, receiveCount: record.attributes.ApproximateReceiveCount, reason });
      const ids = traceIdsOf(record.body);
      if (ids) trace.push({ ...ids, stage: 'dlq', outcome: 'dead_lettered', atMs: Date.now(), detail: reason });
    }
    await deps.trace?.record(trace);
    deps.afterBatch?.();
    return response;
  };
}
