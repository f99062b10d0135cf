/**
 * How a function reads its environment: zod schemas of single variables (unset and empty alike,
 * integers with a floor, URLs, CORS origins) and `parseEnv`, which parses a function's whole
 * environment at cold start and reports every missing or bad variable in one ConfigError. Each
 * function's own config sits beside its composition (e.g. `fanOutConfigFromEnv` in `fan-out.ts`).
 */
import * as z from 'zod';
import type { Env, EnvName } from '../env.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Unset and empty are the same (CloudFormation cannot unset a variable, only empty it). */
export const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);
export const required = z.preprocess(unsetIfEmpty, z.string({ error: 'is required' }));
export const optionalString = z.preprocess(unsetIfEmpty, z.string().optional());
/** An integer of at least `min`; unset (or empty) is `fallback`. */
const integerOr = <Fallback extends number | undefined>(fallback: Fallback, min: number) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .optional()
      .transform((raw, context): number | Fallback => {
        if (raw === undefined) return fallback;
        const value = Number(raw);
        if (!Number.isInteger(value) || value < min) {
          context.addIssue({ code: 'custom', message: `must be an integer >= ${min}, got ${raw}` });
          return z.NEVER;
        }
        return value;
      }),
  );
export const integer = (fallback: number, min: number) => integerOr(fallback, min);
export const optionalInteger = (min: number) => integerOr(undefined, min);
export const url = z.preprocess(unsetIfEmpty, z.url({ error: 'must be a URL' }));

/**
 * `*` (the default: tokens travel in a header, not cookies, so any origin may call) or a
 * comma-separated list of exact origins such as `https://app.example.com`.
 */
export const corsOrigins = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim() : value) || undefined,
  z
    .string()
    .optional()
    .transform((raw, context) => {
      const origins = (raw ?? '*').split(',').map((origin) => origin.trim()).filter(Boolean);
      for (const origin of origins) {
        if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) context.addIssue({ code: 'custom', message: `${origin} is not an origin (scheme://host[:port])` });
      }
      return origins;
    }),
);

/** Parses `env` against a schema keyed by variable names; every problem in one ConfigError. */
export function parseEnv<Shape extends Partial<Record<EnvName, z.ZodType>>>(what: string, shape: Shape, env: Env): z.output<z.ZodObject<Shape>> {
  const parsed = z.object(shape).safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
  throw new ConfigError(`${what}: ${problems.join('; ')}`);
}
