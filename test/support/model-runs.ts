/**
 * How many generated runs a model suite makes: a short run inside `npm test`, a long one under
 * `npm run test:model` (vitest.model.config.ts sets MODEL_RUNS=long). `FC_SEED` replays a failing
 * seed printed by fast-check (with `FC_PATH` for its shrunk path); `FC_END_ON_FAILURE=1` skips the
 * shrinking (a first failing case at once); `FC_NUM_RUNS` sets the run count (a long run split over
 * processes, each with its own FC_SEED).
 *
 * A short run stops after SHORT_RUN_LIMIT_MS, counted as a failure: a failing case in CI shrank for
 * 19 minutes before it printed (the shrunk sequence so far is printed when the limit cuts it), and a
 * run that slow without a failure is itself worth a red build (each short run takes 1 to 2 minutes).
 */
import type { Parameters } from 'fast-check';

const SHORT_RUN_LIMIT_MS = 8 * 60_000;

export function modelRuns(short: number, long: number): number {
  return process.env.MODEL_RUNS === 'long' ? long : short;
}

/** fast-check parameters of a model suite: the run count, and the seed and path to replay when given. */
export function modelParameters<T>(short: number, long: number): Parameters<T> {
  const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
  return {
    numRuns: process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : modelRuns(short, long),
    ...(process.env.MODEL_RUNS === 'long' ? {} : { interruptAfterTimeLimit: SHORT_RUN_LIMIT_MS, markInterruptAsFailure: true }),
    ...(process.env.FC_END_ON_FAILURE ? { endOnFailure: true } : {}),
    ...(seed !== undefined && Number.isFinite(seed) ? { seed, ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}) } : {}),
  };
}
