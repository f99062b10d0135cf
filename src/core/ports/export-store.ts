/** Where user exports are kept (an encrypted S3 bucket on AWS, DATA_DIR/exports locally). */
export interface ExportStore {
  /** Stores the document under `key`, replacing one there (a retried export writes the same key). */
  put(key: string, body: string): Promise<void>;
  /** Deletes every document under `prefix` (a user's exports, at their erasure); answers how many there were. */
  deletePrefix(prefix: string): Promise<number>;
}
