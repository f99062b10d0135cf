/**
 * The delivery trace, business metrics and X-Ray annotations of the queue consumers, built once per
 * container (Lambda) or per local runtime. Metrics go out as EMF only on Lambda (locally: none; the
 * trace table and the logs answer there). Tracing and metrics never fail a delivery.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoTraceRepository, type TraceTables } from '../adapters/dynamo/trace-repository.js';
import { XRaySubsegments } from '../adapters/xray/xray-subsegments.js';
import { fanOutTo, neverFailing, type TraceEntry, type TraceOutcome, type TraceRecorder, type TraceStage } from '../core/ports/trace.js';
import { auditTrailOf } from './audit/audit-trail.js';
import type { Env } from '../env.js';
import { integer, optionalInteger, parseEnv } from './config-parsing.js';
import { BUSINESS_METRICS, METRICS_NAMESPACE, METRICS_SERVICE, SUPPRESSION_REASONS } from './metric-names.js';
import { documentClient, type Parts } from './parts.js';

/** Gate and fan-out outcomes that hold back or drop a push; counted under `Reason`. */
const SUPPRESSIONS = new Set<TraceOutcome>(SUPPRESSION_REASONS);
const CHANNEL_STAGES = new Set<TraceStage>(['push', 'email', 'sms']);
const COUNTS: Partial<Record<TraceOutcome, string>> = {
  accepted: BUSINESS_METRICS.accepted,
  invalid: BUSINESS_METRICS.invalid,
  inbox_written: BUSINESS_METRICS.notificationsWritten,
  backfilled: BUSINESS_METRICS.notificationsWritten,
  celebrity_feed: BUSINESS_METRICS.celebrityFeedWrites,
  delivered_live: BUSINESS_METRICS.deliveredLive,
  deduplicated: BUSINESS_METRICS.deduplicated,
  dead_lettered: BUSINESS_METRICS.deadLettered,
};

export interface Observability {
  /** The trace recorder the stages write to (trace table + metrics; never throws). */
  trace: TraceRecorder;
  /** Runs one record's work in an X-Ray subsegment annotated with tenant and event id. */
  traced<T>(name: string, ids: { tenantId: string; eventId: string }, work: () => Promise<T>): Promise<T>;
  /** Publishes the metrics of a batch (EMF on Lambda). */
  flush(): void;
}

const onLambda = () => process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined;

/** Counts every trace entry into the metrics (one EMF document per flush). */
export function metricsRecorder(metrics: Metrics): TraceRecorder {
  return {
    async record(entries: readonly TraceEntry[]) {
      const suppressed = new Map<string, number>();
      for (const entry of entries) {
        // The live pipeline's metrics: push / email / SMS decisions are in the trace and the audit trail only.
        if (CHANNEL_STAGES.has(entry.stage)) continue;
        const name = COUNTS[entry.outcome];
        if (name) metrics.addMetric(name, MetricUnit.Count, 1);
        if (SUPPRESSIONS.has(entry.outcome)) suppressed.set(entry.outcome, (suppressed.get(entry.outcome) ?? 0) + 1);
        // Held pushes (released later) are late by design: only immediate pushes measure the pipeline.
        if (entry.outcome === 'delivered_live' && entry.eventTimeMs !== undefined) metrics.addMetric(BUSINESS_METRICS.endToEndLatency, MetricUnit.Milliseconds, Math.max(0, entry.atMs - entry.eventTimeMs));
      }
      for (const [reason, count] of suppressed) {
        const single = metrics.singleMetric();
        single.addDimension('Reason', reason);
        single.addMetric(BUSINESS_METRICS.suppressed, MetricUnit.Count, count);
      }
    },
  };
}

/** The trace table never gets a record keyed by an erased recipient (it would name them again); the audit trail does, pseudonymized. */
function withoutErasedRecipients(recorder: TraceRecorder): TraceRecorder {
  return { record: (entries) => recorder.record(entries.filter((entry) => entry.outcome !== 'erased' || entry.userId === undefined)) };
}

/** The trace, metrics and X-Ray of a consumer, one per (table, trace TTL) of a Parts. */
export function observability(parts: Parts, tables: TraceTables, config: Partial<ObservabilityConfig> = {}): Observability {
  const traceTtlSeconds = config.traceTtlSeconds ?? TRACE_TTL_DAYS_DEFAULT * 86_400;
  return parts.shared(observability, [tables.idempotencyTable, tables.inboxTable, traceTtlSeconds], () => {
    const table = new DynamoTraceRepository(documentClient(parts), tables, traceTtlSeconds, parts.clock);
    const metrics = onLambda() ? new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }) : undefined;
    const xray = onLambda() ? new XRaySubsegments() : undefined;
    // Audit trail hook (src/app/audit/): the same decisions, in memory until the batch's barrier.
    const audit = auditTrailOf(parts);
    const recorders = [withoutErasedRecipients(table), ...(metrics ? [metricsRecorder(metrics)] : []), ...(audit ? [audit.recorder] : [])];
    const trace = neverFailing(fanOutTo(recorders), (error, count) =>
      parts.logger.warn('delivery trace not written (the delivery goes on)', { records: count, error: error as Error }),
    );
    return {
      trace,
      traced: (name, ids, work) => (xray ? xray.traced(name, { tenantId: ids.tenantId, eventId: ids.eventId }, work) : work()),
      flush() {
        if (metrics?.hasStoredMetrics()) metrics.publishStoredMetrics();
      },
    };
  });
}

/** Delivery trace and dead-letter reporting of the queue consumers (fan-out, delivery, channels). */
export interface ObservabilityConfig {
  /** How long a delivery-trace record lives (`TRACE_TTL_DAYS`, default 7). */
  traceTtlSeconds: number;
  /** The consumer queue's maxReceiveCount: a record failing its last receive is logged at WARN as dead-lettered. */
  maxReceiveCount?: number;
}

export const TRACE_TTL_DAYS_DEFAULT = 7;

export function observabilityConfigFromEnv(env: Env): ObservabilityConfig {
  const parsed = parseEnv('observability', { TRACE_TTL_DAYS: integer(TRACE_TTL_DAYS_DEFAULT, 1), MAX_RECEIVE_COUNT: optionalInteger(1) }, env);
  return { traceTtlSeconds: parsed.TRACE_TTL_DAYS * 86_400, ...(parsed.MAX_RECEIVE_COUNT !== undefined ? { maxReceiveCount: parsed.MAX_RECEIVE_COUNT } : {}) };
}
