/** Port of the erasure tombstones: which of these users were erased (their tombstone still lives). */
export interface ErasedUsers {
  /** The subset of `userIds` (one tenant) with a live erasure tombstone. */
  erasedAmong(tenantId: string, userIds: readonly string[]): Promise<Set<string>>;
}
