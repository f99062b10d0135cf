/**
 * Bounded parallelism: `work` over every input with at most `limit` calls in flight, results in
 * input order. Fails like Promise.all: the first rejection rejects the whole map, and from then on no
 * further input is started (calls already in flight run to their end; their results are dropped).
 */
export async function mapBounded<T, R>(inputs: Iterable<T>, limit: number, work: (input: T, index: number) => Promise<R>): Promise<R[]> {
  const pending = Array.from(inputs);
  const results = new Array<R>(pending.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < pending.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await work(pending[index]!, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Math.min(Math.max(1, Math.floor(limit)), pending.length);
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

/** mapBounded for work whose results are not needed. */
export async function forEachBounded<T>(inputs: Iterable<T>, limit: number, work: (input: T, index: number) => Promise<void>): Promise<void> {
  await mapBounded(inputs, limit, work);
}
