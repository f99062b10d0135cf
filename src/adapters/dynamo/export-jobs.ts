/**
 * The status record of an export job (Idempotency table, `keys.exportJobId`, TTL): running, then
 * done with the export's object key. It holds no user id: the key is under a digest of the subject.
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/model/keys.js';

export interface ExportJobRecord {
  status: 'running' | 'done';
  objectKey: string;
  startedAtMs: number;
  doneAtMs?: number;
  /** Bytes of the document. */
  bytes?: number;
}

/** How long a job's record (and the export it points to) is kept. */
export const EXPORT_RETENTION_DAYS = 7;

export class ExportJobs {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async save(tenantId: string, jobId: string, record: ExportJobRecord): Promise<void> {
    const expiration = Math.floor(record.startedAtMs / 1000) + EXPORT_RETENTION_DAYS * 86_400;
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { id: keys.exportJobId(tenantId, jobId), ...record, expiration } }));
  }

  async get(tenantId: string, jobId: string): Promise<ExportJobRecord | undefined> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id: keys.exportJobId(tenantId, jobId) }, ConsistentRead: true }));
    if (!output.Item) return undefined;
    const { status, objectKey, startedAtMs, doneAtMs, bytes } = output.Item;
    return { status: status === 'done' ? 'done' : 'running', objectKey: String(objectKey), startedAtMs: Number(startedAtMs), ...(typeof doneAtMs === 'number' ? { doneAtMs } : {}), ...(typeof bytes === 'number' ? { bytes } : {}) };
  }
}
