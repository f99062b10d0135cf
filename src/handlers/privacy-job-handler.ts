/**
 * Consumer of the privacy job queue (`src/core/privacy/privacy-jobs.ts`): a `user.erased` or
 * `user.export.requested` event the bus rule delivers, or a job message an operator sent.
 *
 * - erase: one bounded step of the erasure (checkpointed in its tombstone record); a step that is not
 *   done sends the next one, delayed through the grace period (SQS DelaySeconds, at most 15 min), so
 *   a large footprint spans many invocations and a killed one is redelivered and resumes.
 * - export: the document into the export store, then its job record marked done.
 *
 * A body that is no job goes to the DLQ (a WARN line says why); a second run of the same erasure
 * racing this one stops this one (ErasureConflictError: the other goes on), not an error.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSRecord } from 'aws-lambda';
import { ErasureConflictError, totalRemoved, type ErasureReport, type ErasureSubject } from '../core/privacy/erasure.js';
import { erasureJobId, jobIdOf, parsePrivacyJob, type PrivacyJobMessage } from '../core/privacy/privacy-jobs.js';
import type { SqsBatchHandler } from './fanout-handler.js';

/** SQS DelaySeconds at most. */
export const MAX_DELAY_SECONDS = 900;

export interface PrivacyJobDeps {
  eraseStep(subject: ErasureSubject): Promise<{ done: boolean; waitMs?: number; report: ErasureReport }>;
  exportUser(subject: ErasureSubject, jobId: string): Promise<{ bytes: number }>;
  /** Sends a job message to the queue again, after `delaySeconds`. */
  requeue(job: PrivacyJobMessage, delaySeconds: number): Promise<void>;
  logger: Logger;
}

export function createPrivacyJobHandler(deps: PrivacyJobDeps): SqsBatchHandler {
  const { logger } = deps;
  const recordHandler = async (record: SQSRecord): Promise<void> => {
    let job: PrivacyJobMessage;
    try {
      job = parsePrivacyJob(record.body);
    } catch (error) {
      logger.warn('privacy job rejected: not a job message or privacy request event (to the DLQ)', { messageId: record.messageId, reason: (error as Error).message });
      throw error;
    }
    const subject = { tenantId: job.tenantId, userId: job.userId };
    if (job.kind === 'export') {
      const { bytes } = await deps.exportUser(subject, job.jobId);
      logger.info('export written', { messageId: record.messageId, jobId: jobIdOf({ kind: 'export', tenantId: job.tenantId, jobId: job.jobId }), bytes });
      return;
    }
    const jobId = erasureJobId(subject);
    try {
      const step = await deps.eraseStep(subject);
      if (step.done) {
        logger.info('erasure done', { messageId: record.messageId, jobId, removed: totalRemoved(step.report), steps: step.report.steps });
        return;
      }
      const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.ceil((step.waitMs ?? 0) / 1000));
      // The next step as an operator message (an event's redelivery would not be told apart from it).
      await deps.requeue({ v: 1, kind: 'erase', tenantId: job.tenantId, userId: job.userId }, delaySeconds);
      logger.info('erasure step done, next one queued', { messageId: record.messageId, jobId, delaySeconds, removed: totalRemoved(step.report) });
    } catch (error) {
      if (!(error instanceof ErasureConflictError)) throw error;
      logger.warn('erasure step stopped: another run of this erasure saved its checkpoint meanwhile and goes on', { messageId: record.messageId, jobId });
    }
  };
  return (event, context) => processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false });
}
