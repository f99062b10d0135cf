/**
 * Consumer of the audit backlog queue: puts back into the archive what the writers could not write.
 * A `sealed` message is whole segments (each line checked), appended unchanged; a `raw` one is
 * decisions not yet pseudonymized, sealed by this drainer's own writer. A sink still down fails the
 * record: SQS redelivers it after the visibility timeout and, at maxReceiveCount, moves it to the
 * backlog DLQ (alarmed; redrive with `npm run dlq`). Nothing is acknowledged before it is written.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { auditVerdictFields } from '../contract/audit-record.js';
import type { AuditWriter } from '../core/audit/audit-writer.js';
import { parseAuditLine } from '../core/audit/chain.js';
import type { AuditBacklogMessage, AuditSink } from '../core/audit/ports.js';
import type { Pseudonymizer } from '../core/audit/pseudonymizer.js';

const MAX_ID = 256;
const decisionSchema = z
  .object({
    atMs: z.number().int().min(0),
    tenantId: z.string().min(1).max(MAX_ID),
    eventId: z.string().min(1).max(MAX_ID),
    userId: z.string().min(1).max(MAX_ID).optional(),
    notificationId: z.string().min(1).max(MAX_ID).optional(),
    ...auditVerdictFields,
  })
  .strict();
const erasureSchema = z.object({ tenantId: z.string().min(1).max(MAX_ID), userId: z.string().min(1).max(MAX_ID), atMs: z.number().int().min(0) }).strict();
const backlogMessageSchema = z.discriminatedUnion('kind', [
  z.object({ v: z.literal(1), kind: z.literal('sealed'), lines: z.array(z.string().max(64 * 1024)).min(1).max(10_000) }).strict(),
  z.object({ v: z.literal(1), kind: z.literal('raw'), decisions: z.array(decisionSchema).max(10_000), erasures: z.array(erasureSchema).max(10_000) }).strict(),
]);

export class InvalidBacklogMessageError extends Error {
  override readonly name = 'InvalidBacklogMessageError';
}

export interface AuditDrainDeps {
  sink: AuditSink;
  writer: Pick<AuditWriter, 'record' | 'recordErasure' | 'flush'>;
  pseudonymizer: Pick<Pseudonymizer, 'contentsOf'>;
  logger: Logger;
}

/** The message, or a named error saying what is wrong (it goes to the DLQ after its retries, with the reason logged). */
export function parseBacklogMessage(body: string): AuditBacklogMessage {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new InvalidBacklogMessageError('body is not JSON');
  }
  const parsed = backlogMessageSchema.safeParse(value);
  if (!parsed.success) throw new InvalidBacklogMessageError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  const message = parsed.data as AuditBacklogMessage;
  if (message.kind === 'sealed') {
    message.lines.forEach((line, index) => {
      const checked = parseAuditLine(line);
      if (!checked.ok) throw new InvalidBacklogMessageError(`lines.${index}: ${checked.reason}`);
      if (index === 0 && (checked.record.kind !== 'segment' || checked.record.seq !== 0)) throw new InvalidBacklogMessageError('lines.0: a backlog message must start a segment');
    });
  }
  return message;
}

export function createAuditDrainHandler(deps: AuditDrainDeps) {
  const drain = async (record: SQSRecord): Promise<void> => {
    let message: AuditBacklogMessage;
    try {
      message = parseBacklogMessage(record.body);
    } catch (error) {
      deps.logger.error('invalid audit backlog message', { messageId: record.messageId, reason: (error as Error).message });
      throw error;
    }
    if (message.kind === 'sealed') {
      await deps.sink.append(message.lines);
      return;
    }
    // Still unreadable keys or salts: fail now (retried), rather than back onto the backlog in a loop.
    await deps.pseudonymizer.contentsOf(message.decisions, message.erasures);
    deps.writer.record(message.decisions);
    for (const erasure of message.erasures) deps.writer.recordErasure(erasure);
    await deps.writer.flush();
  };
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const response = await processPartialResponse(event, drain, new BatchProcessor(EventType.SQS), { throwOnFullBatchFailure: false });
    if (response.batchItemFailures.length > 0) deps.logger.warn('audit backlog records not drained yet; retried after the visibility timeout', { failed: response.batchItemFailures.length, records: event.Records.length });
    return response;
  };
}
