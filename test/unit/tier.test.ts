import { describe, expect, it } from 'vitest';
import { demotionThreshold, nextTier } from '../../src/core/model/tier.js';

describe('nextTier (hysteresis)', () => {
  const threshold = 10_000;

  it('promotes an ordinary account at the threshold, not before', () => {
    expect(nextTier('ordinary', 9_999, threshold)).toBe('ordinary');
    expect(nextTier('ordinary', 10_000, threshold)).toBe('celebrity');
  });

  it('keeps a celebrity between 90% of the threshold and the threshold', () => {
    expect(demotionThreshold(threshold)).toBe(9_000);
    expect(nextTier('celebrity', 9_999, threshold)).toBe('celebrity');
    expect(nextTier('celebrity', 9_000, threshold)).toBe('celebrity');
  });

  it('demotes a celebrity below 90% of the threshold', () => {
    expect(nextTier('celebrity', 8_999, threshold)).toBe('ordinary');
  });

  it('does not flap for an account hovering at the line', () => {
    let tier = nextTier('ordinary', 10_000, threshold);
    for (const count of [9_999, 10_000, 9_998, 10_001, 9_500]) tier = nextTier(tier, count, threshold);
    expect(tier).toBe('celebrity');
  });
});
