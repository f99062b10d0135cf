/** Fail-fast configuration helpers: a missing variable is a deploy bug, found at cold start. */
import { tableSpecs, type TableName } from './table-specs.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (value === undefined || value === '') throw new ConfigError(`environment variable ${name} is required`);
  return value;
}

export function intEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new ConfigError(`environment variable ${name} must be an integer, got ${raw}`);
  return value;
}

/**
 * `CORS_ALLOW_ORIGINS`: `*` (the default: tokens travel in a header, not cookies, so any origin may
 * call) or a comma-separated list of exact origins such as `https://app.example.com`.
 */
export function corsAllowOriginsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env.CORS_ALLOW_ORIGINS?.trim() || '*';
  const origins = raw.split(',').map((origin) => origin.trim()).filter(Boolean);
  for (const origin of origins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) throw new ConfigError(`CORS_ALLOW_ORIGINS: ${origin} is not an origin (scheme://host[:port])`);
  }
  return origins;
}

export function tableNameFromEnv(table: TableName, env: NodeJS.ProcessEnv = process.env): string {
  return requireEnv(tableSpecs[table].envVar, env);
}
