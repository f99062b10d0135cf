/**
 * SQS consumer of a priority delivery queue: validates each record as a DeliveryJob, delivers the
 * batch (urgent: each at once; info: a digest per connection), and answers a partial batch
 * response so only the failed records are redelivered.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliveryJobSchema, type Priority } from '../core/delivery-job.js';
import type { DeliveryInput, LiveDelivery } from '../core/live-delivery.js';

export class InvalidDeliveryJobError extends Error {
  override readonly name = 'InvalidDeliveryJobError';
}

export class DeliveryRetryError extends Error {
  override readonly name = 'DeliveryRetryError';
}

export interface DeliveryHandlerDeps {
  delivery: Pick<LiveDelivery, 'deliver'>;
  mode: Priority;
  logger: Logger;
}

function parseRecord(record: SQSRecord): DeliveryInput {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    throw new InvalidDeliveryJobError('body is not JSON');
  }
  const parsed = deliveryJobSchema.safeParse(body);
  if (!parsed.success) throw new InvalidDeliveryJobError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  return { recordId: record.messageId, job: parsed.data };
}

export function createDeliveryHandler(deps: DeliveryHandlerDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const inputs: DeliveryInput[] = [];
    const invalid = new Map<string, InvalidDeliveryJobError>();
    for (const record of event.Records) {
      try {
        inputs.push(parseRecord(record));
      } catch (error) {
        // Reported as a failure so it reaches the DLQ after maxReceiveCount, with the reason logged.
        invalid.set(record.messageId, error as InvalidDeliveryJobError);
        deps.logger.error('invalid delivery job', { messageId: record.messageId, reason: (error as Error).message });
      }
    }
    const report = await deps.delivery.deliver(inputs, deps.mode);
    deps.logger.debug('delivery batch', {
      records: event.Records.length,
      messagesSent: report.messagesSent,
      duplicatesSkipped: report.duplicatesSkipped,
      goneConnections: report.goneConnections,
      failed: report.failedRecordIds.size + invalid.size,
    });
    // One processor per invocation: the local runtime may run several batches of a queue at once.
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(
      event,
      async (record: SQSRecord) => {
        const reason = invalid.get(record.messageId);
        if (reason) throw reason;
        if (report.failedRecordIds.has(record.messageId)) throw new DeliveryRetryError(`delivery of ${record.messageId} will be retried`);
      },
      processor,
      { throwOnFullBatchFailure: false },
    );
  };
}
