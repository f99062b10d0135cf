/** K-way merge of newest-first id-ordered lists (own inbox + celebrity feeds). */

export interface HasId {
  id: string;
}

/**
 * Merges lists that are each sorted newest first (descending id) into one newest-first list of at
 * most `limit` items. An id present in several lists appears once.
 */
export function mergeNewestFirst<T extends HasId>(lists: readonly (readonly T[])[], limit: number): T[] {
  const heads = lists.map(() => 0);
  const merged: T[] = [];
  let lastId: string | undefined;
  while (merged.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i += 1) {
      const candidate = lists[i]![heads[i]!];
      if (candidate === undefined) continue;
      if (best === -1 || candidate.id > lists[best]![heads[best]!]!.id) best = i;
    }
    if (best === -1) break;
    const next = lists[best]![heads[best]!]!;
    heads[best] = heads[best]! + 1;
    if (next.id === lastId) continue;
    merged.push(next);
    lastId = next.id;
  }
  return merged;
}
