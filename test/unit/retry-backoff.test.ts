import { describe, expect, it } from 'vitest';
import { fullJitterDelayMs } from '../../src/adapters/backoff.js';

describe('fullJitterDelayMs', () => {
  it('draws below an exponential ceiling that stops at maxDelayMs', () => {
    // Prepare
    const policy = (random: number) => ({ baseDelayMs: 25, maxDelayMs: 2_000, random: () => random });

    // Act
    const highest = [1, 2, 3, 4, 5, 6, 7, 8, 40].map((retry) => fullJitterDelayMs(retry, policy(0.999999)));
    const lowest = [1, 5, 40].map((retry) => fullJitterDelayMs(retry, policy(0)));

    // Assess
    expect(highest).toEqual([24, 49, 99, 199, 399, 799, 1599, 1999, 1999]);
    expect(lowest).toEqual([0, 0, 0]);
  });
});
