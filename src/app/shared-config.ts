/**
 * Config pieces several functions share: the scheduler, the preferences cache, the REST settings
 * and the Connections table, each an interface, the zod shape of its variables and the mapping.
 */
import type * as z from 'zod';
import type { Env } from '../env.js';
import { corsOrigins, optionalInteger, optionalString, parseEnv, required } from './config-parsing.js';

export interface SchedulerConfig {
  groupName: string;
  roleArn: string;
  deadLetterArn?: string;
}

export interface PreferencesCacheConfig {
  graphTable: string;
  cacheTtlMs: number;
}

export interface RestConfig {
  /** Undefined: the default claim of the token verifier. */
  tenantClaim?: string;
  corsAllowOrigins: string[];
}

export interface ConnectionsConfig {
  connectionsTable: string;
  /** Undefined: the repository's default grace. */
  handshakeGraceSeconds?: number;
}

export const schedulerShape = { SCHEDULE_GROUP_NAME: required, SCHEDULER_ROLE_ARN: required, SCHEDULER_DLQ_ARN: optionalString };
export const schedulerOf = (env: z.output<z.ZodObject<typeof schedulerShape>>): SchedulerConfig => ({
  groupName: env.SCHEDULE_GROUP_NAME,
  roleArn: env.SCHEDULER_ROLE_ARN,
  ...(env.SCHEDULER_DLQ_ARN ? { deadLetterArn: env.SCHEDULER_DLQ_ARN } : {}),
});
export const restShape = { TENANT_CLAIM: optionalString, CORS_ALLOW_ORIGINS: corsOrigins };
export const restOf = (env: z.output<z.ZodObject<typeof restShape>>): RestConfig => ({
  ...(env.TENANT_CLAIM ? { tenantClaim: env.TENANT_CLAIM } : {}),
  corsAllowOrigins: env.CORS_ALLOW_ORIGINS,
});
export const connectionsShape = { CONNECTIONS_TABLE: required, HANDSHAKE_GRACE_SECONDS: optionalInteger(0) };
export const connectionsOf = (env: z.output<z.ZodObject<typeof connectionsShape>>): ConnectionsConfig => ({
  connectionsTable: env.CONNECTIONS_TABLE,
  ...(env.HANDSHAKE_GRACE_SECONDS !== undefined ? { handshakeGraceSeconds: env.HANDSHAKE_GRACE_SECONDS } : {}),
});

/** `CORS_ALLOW_ORIGINS` alone (REST functions read it with the rest of their config). */
export function corsAllowOriginsFromEnv(env: Env): string[] {
  return parseEnv('CORS', { CORS_ALLOW_ORIGINS: corsOrigins }, env).CORS_ALLOW_ORIGINS;
}
