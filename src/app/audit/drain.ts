/** Composition of the audit backlog's drainer (AWS: its own function; locally: a consumer of the local backlog queue). */
import { Logger } from '@aws-lambda-powertools/logger';
import * as z from 'zod';
import { createAuditDrainHandler } from '../../handlers/audit-drain-handler.js';
import { ENV, type Env } from '../../env.js';
import { ConfigError } from '../config-parsing.js';
import { createParts, type Parts } from '../parts.js';
import type { AuditTrail } from './audit-trail.js';
import { auditConfigFromEnv, awsAuditTrail } from './aws.js';

export function composeAuditDrain(parts: Parts, trail: AuditTrail) {
  return createAuditDrainHandler({ sink: trail.sink, writer: trail.writer, pseudonymizer: trail.pseudonymizer, logger: parts.logger });
}

export function auditDrainFunction(env: Env) {
  const table = z.object({ [ENV.IDEMPOTENCY_TABLE]: z.string().min(1) }).safeParse(env);
  if (!table.success) throw new ConfigError(`audit drain: ${ENV.IDEMPOTENCY_TABLE} is required`);
  const config = auditConfigFromEnv(env, table.data.IDEMPOTENCY_TABLE);
  if (!config) throw new ConfigError(`audit drain: ${ENV.AUDIT_STREAM_NAME}, ${ENV.AUDIT_KEY_ARN} and ${ENV.AUDIT_BACKLOG_QUEUE_URL} are required`);
  const parts = createParts({ logger: new Logger({ serviceName: 'audit-drain' }) });
  return composeAuditDrain(parts, awsAuditTrail(parts, config));
}
