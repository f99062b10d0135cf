import { describe, expect, it } from 'vitest';
import { mapBounded } from '../../src/core/model/bounded-parallel.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapBounded', () => {
  it('keeps the results in input order whatever order the calls finish in', async () => {
    // Act
    const results = await mapBounded([30, 10, 20, 0], 4, async (ms, index) => {
      await tick(ms);
      return `${index}:${ms}`;
    });

    // Assess
    expect(results).toEqual(['0:30', '1:10', '2:20', '3:0']);
  });

  it('never has more than `limit` calls in flight, and uses all of them', async () => {
    // Prepare
    let inFlight = 0;
    let peak = 0;

    // Act
    await mapBounded(Array.from({ length: 20 }, (_, i) => i), 3, async () => {
      peak = Math.max(peak, (inFlight += 1));
      await tick(2);
      inFlight -= 1;
    });

    // Assess
    expect(peak).toBe(3);
  });

  it('takes any iterable, and a limit below 1 still makes progress', async () => {
    // Act
    const doubled = await mapBounded(new Set([1, 2, 3]).values(), 0, async (value) => value * 2);
    const none = await mapBounded([], 5, async () => 1);

    // Assess
    expect(doubled).toEqual([2, 4, 6]);
    expect(none).toEqual([]);
  });

  it('fails like Promise.all with the first error, and starts no further input after it', async () => {
    // Prepare
    const started: number[] = [];

    // Act
    const outcome = mapBounded([0, 1, 2, 3, 4, 5], 2, async (value) => {
      started.push(value);
      await tick(value === 1 ? 1 : 5);
      if (value === 1) throw new Error('one failed');
      return value;
    });

    // Assess
    await expect(outcome).rejects.toThrow('one failed');
    await tick(20);
    expect(started).toEqual([0, 1]);
  });
});
