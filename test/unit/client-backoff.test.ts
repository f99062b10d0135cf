import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/client/index.js';

describe('backoffDelay (exponential, full jitter)', () => {
  it('draws uniformly below a ceiling that doubles per attempt', () => {
    // Act
    const ceilings = [0, 1, 2, 3].map((attempt) => backoffDelay(attempt, () => 0.999999, { initialDelayMs: 500, maxDelayMs: 30_000 }));

    // Assess
    expect(ceilings).toEqual([499, 999, 1999, 3999]);
  });

  it('can be zero (full jitter) and never exceeds the maximum', () => {
    expect(backoffDelay(5, () => 0)).toBe(0);
    expect(backoffDelay(50, () => 0.999999, { maxDelayMs: 30_000 })).toBe(29_999);
    expect(backoffDelay(1_000, () => 0.5, { maxDelayMs: 30_000 })).toBe(15_000);
  });

  it('spreads clients that retry at the same attempt', () => {
    const delays = [0.1, 0.4, 0.7].map((value) => backoffDelay(4, () => value));
    expect(new Set(delays).size).toBe(3);
  });
});
