/**
 * The audit trail in a composition: one writer per `Parts` (a Lambda container, the local runtime),
 * installed by the function's entry (AWS: src/app/audit/aws.ts) or by the local runtime before the
 * consumers are composed; the delivery trace feeds it (src/app/parts-observability.ts), and every
 * queue consumer awaits its barrier once per batch (`withAuditBarrier`), after its work and before
 * its messages are acknowledged.
 */
import type { SQSRecord } from 'aws-lambda';
import type { AuditWriter } from '../../core/audit/audit-writer.js';
import { auditDecisionOf, type AuditDecisionInput } from '../../core/audit/decisions.js';
import type { AuditSalts, AuditSink } from '../../core/audit/ports.js';
import type { Pseudonymizer } from '../../core/audit/pseudonymizer.js';
import type { TraceRecorder } from '../../core/ports/trace.js';
import { traceIdsOf } from '../../handlers/dead-letter.js';
import type { Parts } from '../parts.js';

export interface AuditTrail {
  writer: AuditWriter;
  /** Where the writer appends (the drainer appends backlog segments there too). */
  sink: AuditSink;
  pseudonymizer: Pseudonymizer;
  salts: AuditSalts;
  /** The trace recorder the stages write to (records in memory; never throws). */
  recorder: TraceRecorder;
  /** The barrier: everything recorded so far is written, buffered or logged. Never rejects. */
  flush(): Promise<void>;
}

const installed = new WeakMap<Parts, AuditTrail>();

export function installAuditTrail(parts: Parts, trail: AuditTrail): AuditTrail {
  installed.set(parts, trail);
  return trail;
}

/** The trail of these parts, if the deployment has one. */
export function auditTrailOf(parts: Parts): AuditTrail | undefined {
  return installed.get(parts);
}

/**
 * The attempt of a decision is the receive count of the message that carried it. Only redelivered
 * messages (receive count > 1) are registered, by event id, while their batch runs: a first attempt
 * costs nothing. (Not AsyncLocalStorage: on Node 20 and 22 it turns on promise hooks for the whole
 * process, measured at several ms of CPU per event on the local runtime.)
 */
const retriedAttempts = new Map<string, number>();

function attemptOf(eventId: string): number {
  return retriedAttempts.get(eventId) ?? 1;
}

/** Registers the batch's redelivered messages; answers the function that unregisters them. */
function registerRetries(records: readonly SQSRecord[]): () => void {
  const registered: Array<[string, number]> = [];
  for (const record of records) {
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount);
    if (!(receiveCount > 1)) continue;
    const ids = traceIdsOf(record.body);
    if (!ids) continue;
    retriedAttempts.set(ids.eventId, Math.max(receiveCount, retriedAttempts.get(ids.eventId) ?? 1));
    registered.push([ids.eventId, receiveCount]);
  }
  return () => {
    for (const [eventId, receiveCount] of registered) if (retriedAttempts.get(eventId) === receiveCount) retriedAttempts.delete(eventId);
  };
}

/** The recorder of `writer`: maps trace entries to audit decisions, in memory. */
export function auditRecorder(writer: AuditWriter): TraceRecorder {
  return {
    async record(entries) {
      const decisions: AuditDecisionInput[] = [];
      for (const entry of entries) {
        const decision = auditDecisionOf(entry, attemptOf(entry.eventId));
        if (decision) decisions.push(decision);
      }
      writer.record(decisions);
    },
  };
}

/**
 * A step whose completion is itself recorded as done (the fan-out's idempotency record): its
 * decisions are made durable before it returns, so a crash after the record never leaves them
 * unwritten (a retry would find the step done and decide nothing again). The delivery jobs were
 * enqueued inside the step, so this wait is not on the push's path.
 */
export function withAuditFlush<Service extends { process(...args: never[]): Promise<unknown> }>(parts: Parts, service: Service): Pick<Service, 'process'> {
  const trail = auditTrailOf(parts);
  if (!trail) return service;
  return {
    process: (async (...args: Parameters<Service['process']>) => {
      const result = await service.process(...args);
      await trail.flush();
      return result;
    }) as Service['process'],
  };
}

/** A queue consumer that awaits the audit barrier after its batch (the same handler when no trail is installed). */
export function withAuditBarrier<Event extends { Records: readonly SQSRecord[] }, Rest extends unknown[], Result>(
  parts: Parts,
  handler: (event: Event, ...rest: Rest) => Promise<Result>,
): (event: Event, ...rest: Rest) => Promise<Result> {
  const trail = auditTrailOf(parts);
  if (!trail) return handler;
  return async (event, ...rest) => {
    const unregister = registerRetries(event.Records);
    try {
      return await handler(event, ...rest);
    } finally {
      unregister();
      await trail.flush();
    }
  };
}
