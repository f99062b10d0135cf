/**
 * A microbatch over DataLoader: what concurrent callers ask during one turn of the event loop (the
 * I/O callbacks of one poll phase and their promise jobs) is handed to `send` together on
 * setImmediate. No cache: a value asked twice is asked twice (the `send` decides how to share it).
 */
import DataLoader from 'dataloader';

/** Names whose loads may share a request (undefined: anyone's); the local runtime passes the function a call is made for. */
export type ScopeOf = () => string | undefined;

export interface Microbatch<Load, Answer> {
  load(load: Load): Promise<Answer>;
}

/**
 * `send` answers one value (or an Error: that caller's promise rejects) per load, in order. Loads
 * of different scopes never share a `send` (on AWS each function is its own process; locally the
 * functions share one, and a shared request must stay one function's call).
 */
export function microbatch<Load, Answer>(send: (loads: readonly Load[]) => Promise<readonly (Answer | Error)[]>, scopeOf: ScopeOf = () => undefined): Microbatch<Load, Answer> {
  const loaders = new Map<string | undefined, DataLoader<Load, Answer>>();
  return {
    load(load) {
      const scope = scopeOf();
      let loader = loaders.get(scope);
      if (!loader) {
        loader = new DataLoader<Load, Answer>((loads) => send(loads), { cache: false, batchScheduleFn: (flush) => setImmediate(flush) });
        loaders.set(scope, loader);
      }
      return loader.load(load);
    },
  };
}

/** The error a whole request failed with, as DataLoader wants it (an Error instance per load). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Waits for every load (none left running), then throws the first failure or answers every value. */
export async function loadAll<Load, Answer>(loader: Microbatch<Load, Answer>, loads: readonly Load[]): Promise<Answer[]> {
  const settled = await Promise.allSettled(loads.map((load) => loader.load(load)));
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<Answer>).value);
}
