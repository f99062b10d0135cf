/**
 * SQS consumer of a priority delivery queue: validates each record as a DeliveryJob, delivers the
 * batch (urgent: each at once; info: a digest per connection), and answers a partial batch
 * response so only the failed records are redelivered. With `deliveryJobSecret`, a job without a
 * valid signature (not sent by the fan-out) is dropped with a WARN: never pushed, never retried.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliveryJobSchema, type Priority } from '../core/jobs/delivery-job.js';
import { hasValidDeliveryJobSignature, isSnoozeComebackJob, isSnoozeComebackRelease, withoutSignature } from '../core/jobs/delivery-job-signature.js';
import { itemReleaseSchema, jobsOfItemReleases, looksLikeItemRelease, type ItemRelease, type OwnItemsReader } from '../core/jobs/item-release.js';
import type { LiveDelivery } from '../core/live/live-delivery.js';
import { parseLiveReleaseMessage, type HeldPushReleaser, type LiveReleaseMessage } from '../core/live/live-gate.js';
import type { TraceEntry, TraceRecorder } from '../core/ports/trace.js';
import { finalAttempt, traceIdsOf } from './dead-letter.js';
import type { DeliveryInput } from '../core/live/delivery-batch.js';

export class InvalidDeliveryJobError extends Error {
  override readonly name = 'InvalidDeliveryJobError';
}

/** A well-formed job the fan-out did not sign: acknowledged without a push (a retry cannot make it valid). */
export class ForgedDeliveryJobError extends Error {
  override readonly name = 'ForgedDeliveryJobError';
}

export class DeliveryRetryError extends Error {
  override readonly name = 'DeliveryRetryError';
}

export interface DeliveryHandlerDeps {
  delivery: Pick<LiveDelivery, 'deliver'>;
  mode: Priority;
  logger: Logger;
  /** Pushes held live notifications when their release schedule fires (quiet hours end, rate-limit digest). */
  releaser?: Pick<HeldPushReleaser, 'release'>;
  /** HMAC key of the fan-out's job signatures; every deployed composition passes it. */
  deliveryJobSecret?: string;
  /** HMAC key of snooze comebacks (urgent delivery): it signs a one-recipient comeback and nothing else. */
  snoozeJobSecret?: string;
  /** The delivery trace (never throws): dead-lettered jobs. */
  trace?: TraceRecorder;
  /** The queue's maxReceiveCount: a record failing its last receive is logged at WARN as dead-lettered. */
  maxReceiveCount?: number;
  /** Called once per batch (the composition flushes its metrics here). */
  afterBatch?: () => void;
  /** Reads a released item back (a snoozed notification's comeback); without it releases find nothing. */
  items?: OwnItemsReader;
  clock?: () => number;
}

function parseRecord(record: SQSRecord, deliveryJobSecret: string | undefined, snoozeJobSecret: string | undefined): DeliveryInput {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    throw new InvalidDeliveryJobError('body is not JSON');
  }
  const parsed = deliveryJobSchema.safeParse(body);
  if (!parsed.success) throw new InvalidDeliveryJobError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  if (deliveryJobSecret !== undefined && !hasValidDeliveryJobSignature(body, deliveryJobSecret)) {
    const comeback = snoozeJobSecret !== undefined && isSnoozeComebackJob(parsed.data) && hasValidDeliveryJobSignature(body, snoozeJobSecret);
    if (!comeback) throw new ForgedDeliveryJobError('missing or invalid job signature');
  }
  return { recordId: record.messageId, job: parsed.data };
}

/** A signed item release (a snooze comeback: a reference to the user's item); undefined for anything else. */
function parseItemRelease(record: SQSRecord, deliveryJobSecret: string | undefined, snoozeJobSecret: string | undefined): ItemRelease | undefined {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    return undefined;
  }
  if (!looksLikeItemRelease(body)) return undefined;
  const parsed = itemReleaseSchema.safeParse(withoutSignature(body));
  if (!parsed.success) throw new InvalidDeliveryJobError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  // The snooze key signs a snooze comeback's release only (REST write holds it, not the delivery-job key).
  const comeback = snoozeJobSecret !== undefined && isSnoozeComebackRelease(parsed.data) && hasValidDeliveryJobSignature(body, snoozeJobSecret);
  if (deliveryJobSecret !== undefined && !comeback && !hasValidDeliveryJobSignature(body, deliveryJobSecret)) throw new ForgedDeliveryJobError('missing or invalid release signature');
  return parsed.data;
}

/** A release message put on the queue by a release schedule, or undefined for anything else. */
function parseReleaseRecord(record: SQSRecord): LiveReleaseMessage | undefined {
  try {
    return parseLiveReleaseMessage(JSON.parse(record.body));
  } catch {
    return undefined;
  }
}

/** The delivery inputs of fired item releases whose item still exists (one deleted meanwhile is dropped). */
async function releasedItems(deps: DeliveryHandlerDeps, releases: readonly { recordId: string; release: ItemRelease }[]): Promise<DeliveryInput[]> {
  if (releases.length === 0) return [];
  const { jobs, gone } = await jobsOfItemReleases(deps.items ?? { getItems: async () => new Map() }, releases.map((entry) => entry.release), deps.clock?.() ?? Date.now());
  if (gone > 0) deps.logger.debug('released items gone (deleted or expired): nothing pushed for them', { gone });
  return releases.flatMap((entry, index): DeliveryInput[] => (jobs[index] ? [{ recordId: entry.recordId, job: jobs[index] }] : []));
}

export function createDeliveryHandler(deps: DeliveryHandlerDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const inputs: DeliveryInput[] = [];
    const invalid = new Map<string, InvalidDeliveryJobError>();
    const releases: { record: SQSRecord; message: LiveReleaseMessage }[] = [];
    const itemReleases: { recordId: string; release: ItemRelease }[] = [];
    for (const record of event.Records) {
      const release = deps.releaser ? parseReleaseRecord(record) : undefined;
      if (release) {
        releases.push({ record, message: release });
        continue;
      }
      try {
        const itemRelease = parseItemRelease(record, deps.deliveryJobSecret, deps.snoozeJobSecret);
        if (itemRelease) itemReleases.push({ recordId: record.messageId, release: itemRelease });
        else inputs.push(parseRecord(record, deps.deliveryJobSecret, deps.snoozeJobSecret));
      } catch (error) {
        if (error instanceof ForgedDeliveryJobError) {
          deps.logger.warn('forged delivery job dropped', { messageId: record.messageId, reason: error.message });
          continue;
        }
        // Reported as a failure so it reaches the DLQ after maxReceiveCount, with the reason logged.
        invalid.set(record.messageId, error as InvalidDeliveryJobError);
        deps.logger.error('invalid delivery job', { messageId: record.messageId, reason: (error as Error).message });
      }
    }
    const failedReleases = new Set<string>();
    try {
      inputs.push(...(await releasedItems(deps, itemReleases)));
    } catch (error) {
      deps.logger.warn('released items unreadable, will retry', { error: error as Error });
      for (const { recordId } of itemReleases) failedReleases.add(recordId);
    }
    const [report] = await Promise.all([
      deps.delivery.deliver(inputs, deps.mode),
      Promise.all(
        releases.map(async ({ record, message }) => {
          try {
            const released = await deps.releaser!.release(message);
            deps.logger.debug('held pushes released', { messageId: record.messageId, tenantId: message.tenantId, userId: message.userId, ...released });
          } catch (error) {
            deps.logger.warn('release of held pushes failed, will retry', { messageId: record.messageId, error: error as Error });
            failedReleases.add(record.messageId);
          }
        }),
      ),
    ]);
    deps.logger.debug('delivery batch', {
      records: event.Records.length,
      messagesSent: report.messagesSent,
      duplicatesSkipped: report.duplicatesSkipped,
      goneConnections: report.goneConnections,
      failed: report.failedRecordIds.size + invalid.size,
    });
    // One processor per invocation: the local runtime may run several batches of a queue at once.
    const processor = new BatchProcessor(EventType.SQS);
    const deadLettered: TraceEntry[] = [];
    for (const record of event.Records) {
      const reason = invalid.get(record.messageId)?.message ?? (report.failedRecordIds.has(record.messageId) || failedReleases.has(record.messageId) ? 'delivery failed (see the WARN lines above)' : undefined);
      if (reason === undefined || !finalAttempt(record, deps.maxReceiveCount)) continue;
      deps.logger.warn('delivery job dead-lettered: last receive failed, the queue moves it to its DLQ', { messageId: record.messageId, queue: record.eventSourceARN, receiveCount: record.attributes.ApproximateReceiveCount, reason });
      const ids = traceIdsOf(record.body);
      if (ids) deadLettered.push({ ...ids, stage: 'dlq', outcome: 'dead_lettered', atMs: Date.now(), detail: `delivery: ${reason}` });
    }
    await deps.trace?.record(deadLettered);
    deps.afterBatch?.();
    return processPartialResponse(
      event,
      async (record: SQSRecord) => {
        const reason = invalid.get(record.messageId);
        if (reason) throw reason;
        if (report.failedRecordIds.has(record.messageId) || failedReleases.has(record.messageId)) throw new DeliveryRetryError(`delivery of ${record.messageId} will be retried`);
      },
      processor,
      { throwOnFullBatchFailure: false },
    );
  };
}
