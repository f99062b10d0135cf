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

export function tableNameFromEnv(table: TableName, env: NodeJS.ProcessEnv = process.env): string {
  return requireEnv(tableSpecs[table].envVar, env);
}
