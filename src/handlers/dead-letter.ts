/**
 * What the queue consumers need to say "dead-lettered" on AWS, where the queue moves a message to its
 * DLQ silently: whether a failed record was its last receive, and the event ids in a raw body.
 */
import type { SQSRecord } from 'aws-lambda';
import { IDENTIFIER_PATTERN } from '../core/model/keys.js';

/** Whether this receive is the last before the queue dead-letters the record (if it fails). */
export function finalAttempt(record: SQSRecord, maxReceiveCount: number | undefined): boolean {
  if (maxReceiveCount === undefined) return false;
  const receiveCount = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isFinite(receiveCount) && receiveCount >= maxReceiveCount;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Tenant and event id of an EventBridge envelope or a delivery job, if the body has readable ones
 * (a body too broken to parse is logged only: there is nothing to key its trace by).
 */
export function traceIdsOf(body: string): { tenantId: string; eventId: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  // An EventBridge envelope carries the producer's event id as `detail.id`; a delivery job as `eventId`.
  const { tenantId, eventId } = isRecord(parsed.detail) ? { tenantId: parsed.detail.tenantId, eventId: parsed.detail.id } : parsed;
  if (typeof tenantId !== 'string' || typeof eventId !== 'string' || !IDENTIFIER_PATTERN.test(tenantId) || eventId.length === 0 || eventId.length > 256) return undefined;
  return { tenantId, eventId };
}
