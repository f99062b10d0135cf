/** Bounded polling for asynchronous effects (never an unbounded wait). */
export interface PollOptions {
  attempts: number;
  intervalMs: number;
}

/** Calls `check` until it returns true (or a defined value), at most `attempts` times; throws otherwise. */
export async function pollUntil<T>(check: () => T | Promise<T>, options: PollOptions, what = 'condition'): Promise<Exclude<T, false | undefined | null>> {
  let last: T | undefined;
  for (let attempt = 0; attempt < options.attempts; attempt += 1) {
    last = await check();
    if (last !== false && last !== undefined && last !== null) return last as Exclude<T, false | undefined | null>;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
  throw new Error(`${what} not met after ${options.attempts} attempts every ${options.intervalMs} ms (last: ${JSON.stringify(last)})`);
}
