import { describe, expect, it } from 'vitest';
import { DEFAULT_CELEBRITY_LOG_BUDGET, firstPageItems } from '../../src/core/read/celebrity-posts-view.js';

describe('firstPageItems (the page scan of the celebrity posts log)', () => {
  it("reads the budget's page until the reader's followed share is known, then about 1.5 x the page over that share", () => {
    expect(firstPageItems(DEFAULT_CELEBRITY_LOG_BUDGET, 21, undefined)).toBe(100);
    expect(firstPageItems(DEFAULT_CELEBRITY_LOG_BUDGET, 21, 1)).toBe(32);
    expect(firstPageItems(DEFAULT_CELEBRITY_LOG_BUDGET, 21, 0.5)).toBe(63);
    // Sparse or unknown: never more than the budget's page, never less than the page itself
    expect(firstPageItems(DEFAULT_CELEBRITY_LOG_BUDGET, 21, 0.25)).toBe(100);
    expect(firstPageItems(DEFAULT_CELEBRITY_LOG_BUDGET, 21, 0)).toBe(100);
    expect(firstPageItems(DEFAULT_CELEBRITY_LOG_BUDGET, 51, 1)).toBe(77);
    expect(firstPageItems(DEFAULT_CELEBRITY_LOG_BUDGET, 51, 5)).toBe(51);
    expect(firstPageItems({ ...DEFAULT_CELEBRITY_LOG_BUDGET, pageItems: 10 }, 21, 1)).toBe(10);
  });
});
