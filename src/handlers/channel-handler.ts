/**
 * SQS consumer of a channel queue (push or email): validates each record as a signed delivery job
 * (the fan-out's, or a held job a release schedule put back), sends through the channel, and answers
 * a partial batch response so only failed records (throttled, dedup store unreadable, preferences
 * unreadable) are redelivered. A job without a valid signature is dropped with a WARN, never sent.
 * The push consumer also takes post alert jobs (the alerts queue, batch size 1): one page of the
 * actor's alert subscribers is pushed like any job, then the next page's job is enqueued; a failed
 * page is retried whole (dedup keeps its pushes single).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import type { ChannelDelivery, ChannelInput, ChannelReleaseInput } from '../core/channels/channel-delivery.js';
import { itemReleaseSchema, looksLikeItemRelease } from '../core/jobs/item-release.js';
import { deliveryJobSchema } from '../core/jobs/delivery-job.js';
import { hasValidDeliveryJobSignature, withoutSignature } from '../core/jobs/delivery-job-signature.js';
import type { TraceEntry, TraceRecorder } from '../core/ports/trace.js';
import { finalAttempt, traceIdsOf } from './dead-letter.js';
import { alertJobSchema, type AlertJob } from '../core/jobs/alert-job.js';

const channelJobSchema = deliveryJobSchema.extend({
  held: z.literal(true).optional(),
  alert: z.literal(true).optional(),
  escalation: z.object({ dueAtMs: z.number().int().min(0), when: z.enum(['unseen', 'unread']) }).strict().optional(),
});

export class InvalidChannelJobError extends Error {
  override readonly name = 'InvalidChannelJobError';
}

export class ChannelRetryError extends Error {
  override readonly name = 'ChannelRetryError';
}

/** Post alerts (push only): one page of subscribers as push inputs, and where the next page goes. */
export interface AlertPages {
  page(recordId: string, job: AlertJob): Promise<{ inputs: ChannelInput[]; next?: AlertJob; listed: number }>;
  enqueue(job: AlertJob): Promise<void>;
}

export interface ChannelHandlerDeps {
  delivery: Pick<ChannelDelivery, 'deliver'>;
  channel: 'push' | 'email' | 'sms';
  deliveryJobSecret: string;
  logger: Logger;
  maxReceiveCount?: number;
  /** The delivery trace and audit trail (never throws): dead-lettered jobs. */
  trace?: TraceRecorder;
  alerts?: AlertPages;
}

type Parsed = { input: ChannelInput } | { release: ChannelReleaseInput } | { alert: AlertJob } | { forged: string } | { invalid: string };

const issuesOf = (error: z.ZodError) => error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');

function parseRecord(record: SQSRecord, secret: string): Parsed {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    return { invalid: 'body is not JSON' };
  }
  if (typeof body === 'object' && body !== null && 'alerts' in body) {
    const alert = alertJobSchema.safeParse(body);
    if (!alert.success) return { invalid: issuesOf(alert.error) };
    if (!hasValidDeliveryJobSignature(body, secret)) return { forged: 'missing or invalid job signature' };
    return { alert: alert.data };
  }
  if (looksLikeItemRelease(body)) {
    // A held message's release (a reference): signed like a job, its notification read back by the delivery.
    const release = itemReleaseSchema.safeParse(withoutSignature(body));
    if (!release.success) return { invalid: issuesOf(release.error) };
    if (!hasValidDeliveryJobSignature(body, secret)) return { forged: 'missing or invalid release signature' };
    return { release: { recordId: record.messageId, release: release.data } };
  }
  const parsed = channelJobSchema.safeParse(body);
  if (!parsed.success) return { invalid: issuesOf(parsed.error) };
  if (!hasValidDeliveryJobSignature(body, secret)) return { forged: 'missing or invalid job signature' };
  const { held, escalation, alert, ...job } = parsed.data;
  return { input: { recordId: record.messageId, job: { ...job, ...(held ? { held } : {}), ...(escalation ? { escalation } : {}), ...(alert ? { alert } : {}) } } };
}

export function createChannelHandler(deps: ChannelHandlerDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const inputs: ChannelInput[] = [];
    const releases: ChannelReleaseInput[] = [];
    const invalid = new Map<string, string>();
    const alertJobs = new Map<string, AlertJob>();
    for (const record of event.Records) {
      const parsed = parseRecord(record, deps.deliveryJobSecret);
      if ('input' in parsed) inputs.push(parsed.input);
      else if ('release' in parsed) releases.push(parsed.release);
      else if ('alert' in parsed) {
        if (deps.alerts) alertJobs.set(record.messageId, parsed.alert);
        else invalid.set(record.messageId, `a post alert job on the ${deps.channel} consumer`);
      }
      else if ('forged' in parsed) deps.logger.warn(`forged ${deps.channel} job dropped`, { messageId: record.messageId, reason: parsed.forged });
      else {
        invalid.set(record.messageId, parsed.invalid);
        deps.logger.error(`invalid ${deps.channel} job`, { messageId: record.messageId, reason: parsed.invalid });
      }
    }
    const nextPages = new Map<string, AlertJob>();
    const alertFailed = new Set<string>();
    for (const [recordId, job] of alertJobs) {
      try {
        const page = await deps.alerts!.page(recordId, job);
        inputs.push(...page.inputs);
        if (page.next) nextPages.set(recordId, page.next);
        deps.logger.debug('post alert page', { eventId: job.eventId, actorId: job.alerts.actorId, page: job.alerts.page, listed: page.listed, pushing: page.inputs.length });
      } catch (error) {
        alertFailed.add(recordId);
        deps.logger.warn('post alert page unreadable; the job is retried', { messageId: recordId, error: String(error) });
      }
    }
    const report = await deps.delivery.deliver(inputs, releases);
    for (const recordId of alertFailed) report.failedRecordIds.add(recordId);
    // The next page once this one is done (a failed page is retried whole first; a crash after this line re-enqueues it: its pushes dedup).
    for (const [recordId, next] of nextPages) {
      if (report.failedRecordIds.has(recordId)) continue;
      await deps.alerts!.enqueue(next).catch((error: unknown) => {
        report.failedRecordIds.add(recordId);
        deps.logger.warn('post alert next page not enqueued; the page is retried', { messageId: recordId, error: String(error) });
      });
    }
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
