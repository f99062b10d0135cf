/**
 * The server side's one retry delay: exponential backoff with full jitter (AWS Architecture Blog,
 * "Exponential Backoff And Jitter"), capped. The browser client's reconnect backoff is its own.
 */
export interface BackoffPolicy {
  /** Ceiling of the first retry's delay; doubles per retry. */
  baseDelayMs: number;
  /** No retry waits longer than this. */
  maxDelayMs: number;
  random: () => number;
}

/** Delay before retry number `retry` (1 = the first retry): uniform in [0, min(max, base * 2^(retry-1))). */
export function fullJitterDelayMs(retry: number, policy: BackoffPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(Math.max(0, retry - 1), 30));
  return Math.floor(policy.random() * ceiling);
}

export const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
