/**
 * SQS consumer of a channel queue (push or email): validates each record as a signed delivery job
 * (the fan-out's, or a held job a release schedule put back), sends through the channel, and answers
 * a partial batch response so only failed records (throttled, dedup store unreadable, preferences
 * unreadable) are redelivered. A job without a valid signature is dropped with a WARN, never sent.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import type { ChannelDelivery, ChannelInput } from '../core/channels/channel-delivery.js';
import { deliveryJobSchema } from '../core/jobs/delivery-job.js';
import { hasValidDeliveryJobSignature } from '../core/jobs/delivery-job-signature.js';
import type { TraceEntry, TraceRecorder } from '../core/ports/trace.js';
import { finalAttempt, traceIdsOf } from './dead-letter.js';

const channelJobSchema = deliveryJobSchema.extend({
  held: z.literal(true).optional(),
  escalation: z.object({ dueAtMs: z.number().int().min(0), when: z.enum(['unseen', 'unread']) }).strict().optional(),
});

export class InvalidChannelJobError extends Error {
  override readonly name = 'InvalidChannelJobError';
}

export class ChannelRetryError extends Error {
  override readonly name = 'ChannelRetryError';
}

export interface ChannelHandlerDeps {
  delivery: Pick<ChannelDelivery, 'deliver'>;
  channel: 'push' | 'email';
  deliveryJobSecret: string;
  logger: Logger;
  maxReceiveCount?: number;
  /** The delivery trace and audit trail (never throws): dead-lettered jobs. */
  trace?: TraceRecorder;
}

type Parsed = { input: ChannelInput } | { forged: string } | { invalid: string };

function parseRecord(record: SQSRecord, secret: string): Parsed {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    return { invalid: 'body is not JSON' };
  }
  const parsed = channelJobSchema.safeParse(body);
  if (!parsed.success) return { invalid: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ') };
  if (!hasValidDeliveryJobSignature(body, secret)) return { forged: 'missing or invalid job signature' };
  const { held, escalation, ...job } = parsed.data;
  return { input: { recordId: record.messageId, job: { ...job, ...(held ? { held } : {}), ...(escalation ? { escalation } : {}) } } };
}

export function createChannelHandler(deps: ChannelHandlerDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const inputs: ChannelInput[] = [];
    const invalid = new Map<string, string>();
    for (const record of event.Records) {
      const parsed = parseRecord(record, deps.deliveryJobSecret);
      if ('input' in parsed) inputs.push(parsed.input);
      else if ('forged' in parsed) deps.logger.warn(`forged ${deps.channel} job dropped`, { messageId: record.messageId, reason: parsed.forged });
      else {
        invalid.set(record.messageId, parsed.invalid);
        deps.logger.error(`invalid ${deps.channel} job`, { messageId: record.messageId, reason: parsed.invalid });
      }
    }
    const report = await deps.delivery.deliver(inputs);
    deps.logger.debug(`${deps.channel} batch`, { records: event.Records.length, sent: report.messagesSent, duplicates: report.duplicatesSkipped, held: report.held, skipped: report.skipped, devicesRemoved: report.devicesRemoved, failed: report.failedRecordIds.size + invalid.size });
    const deadLettered: TraceEntry[] = [];
    for (const record of event.Records) {
      const failed = invalid.has(record.messageId) || report.failedRecordIds.has(record.messageId);
      if (failed && finalAttempt(record, deps.maxReceiveCount)) {
        const reason = invalid.get(record.messageId) ?? 'send failed (see the WARN lines above)';
        deps.logger.warn(`${deps.channel} job dead-lettered: last receive failed, the queue moves it to its DLQ (redrive: npm run dlq)`, { messageId: record.messageId, queue: record.eventSourceARN, reason });
        const ids = traceIdsOf(record.body);
        if (ids) deadLettered.push({ ...ids, stage: 'dlq', outcome: 'dead_lettered', atMs: Date.now(), detail: `${deps.channel}: ${reason}` });
      }
    }
    await deps.trace?.record(deadLettered);
    return processPartialResponse(
      event,
      async (record: SQSRecord) => {
        const reason = invalid.get(record.messageId);
        if (reason) throw new InvalidChannelJobError(reason);
        if (report.failedRecordIds.has(record.messageId)) throw new ChannelRetryError(`${deps.channel} job ${record.messageId} will be retried`);
      },
      new BatchProcessor(EventType.SQS),
      { throwOnFullBatchFailure: false },
    );
  };
}
