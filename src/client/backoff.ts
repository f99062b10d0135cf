/** Reconnect delays: exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"). */

export interface BackoffOptions {
  /** Ceiling of the first retry's delay. Default 500 ms. */
  initialDelayMs?: number;
  /** Ceiling of any retry's delay. Default 30 s. */
  maxDelayMs?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialDelayMs: 500, maxDelayMs: 30_000 };

/**
 * Delay before retry number `attempt` (0 = first retry): uniform in [0, min(max, initial * 2^attempt)).
 * Full jitter spreads a fleet of clients that lost the same server so they do not reconnect in lockstep.
 */
export function backoffDelay(attempt: number, random: () => number, options: BackoffOptions = {}): number {
  const { initialDelayMs, maxDelayMs } = { ...DEFAULT_BACKOFF, ...options };
  const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}
