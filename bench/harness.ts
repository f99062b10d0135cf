/** Shared types and helpers for benchmark suites (`bench/suites/*.ts`). */

export interface BenchResult {
  /** Dotted metric name, e.g. `markAllRead.requests.n1000`. */
  name: string;
  value: number;
  unit: string;
  /** Optional human note shown in BENCHMARKS.md (baseline, target). */
  note?: string;
}

export interface BenchSuite {
  /** Short id used to run one suite: `npm run bench -- <id>`. */
  id: string;
  title: string;
  /** Markdown: what is measured and how (shown above the suite's table). */
  method: string;
  run(): Promise<BenchResult[]>;
}

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await work();
  return { result, ms: performance.now() - start };
}
