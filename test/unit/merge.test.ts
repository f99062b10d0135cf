import { describe, expect, it } from 'vitest';
import { mergeNewestFirst } from '../../src/core/read/merge.js';
import { idsOf, newestFirst, notificationsEverySecond, T0 } from '../support/fixtures.js';

const all = notificationsEverySecond(12, T0);
const byNewest = newestFirst(all);
// Three sources that interleave: item i goes to source i % 3.
const sources = [0, 1, 2].map((source) => byNewest.filter((_, index) => index % 3 === source));

describe('mergeNewestFirst', () => {
  it('interleaves sorted sources newest first', () => {
    // Act
    const merged = mergeNewestFirst(sources, 100);

    // Assess
    expect(idsOf(merged)).toEqual(idsOf(byNewest));
  });

  it('stops at the limit, taking the newest', () => {
    // Act
    const merged = mergeNewestFirst(sources, 5);

    // Assess
    expect(idsOf(merged)).toEqual(idsOf(byNewest.slice(0, 5)));
  });

  it('limit 0 gives nothing', () => {
    expect(mergeNewestFirst(sources, 0)).toEqual([]);
  });

  it('an id present in several sources appears once', () => {
    // Prepare
    const shared = byNewest[3]!;
    const withDuplicates = [sources[0]!, newestFirst([...sources[1]!, shared]), newestFirst([...sources[2]!, shared])];

    // Act
    const merged = mergeNewestFirst(withDuplicates, 100);

    // Assess
    expect(idsOf(merged)).toEqual(idsOf(byNewest));
  });

  it('duplicates do not count against the limit', () => {
    // Prepare: two identical sources.
    const twice = [byNewest, byNewest];

    // Act
    const merged = mergeNewestFirst(twice, 4);

    // Assess
    expect(idsOf(merged)).toEqual(idsOf(byNewest.slice(0, 4)));
  });

  it('handles no sources, empty sources and one source', () => {
    expect(mergeNewestFirst([], 10)).toEqual([]);
    expect(mergeNewestFirst([[], []], 10)).toEqual([]);
    expect(idsOf(mergeNewestFirst([[], byNewest, []], 3))).toEqual(idsOf(byNewest.slice(0, 3)));
  });

  it('one source entirely newer than another', () => {
    // Prepare
    const newerHalf = byNewest.slice(0, 6);
    const olderHalf = byNewest.slice(6);

    // Act
    const merged = mergeNewestFirst([olderHalf, newerHalf], 100);

    // Assess
    expect(idsOf(merged)).toEqual(idsOf(byNewest));
  });
});
