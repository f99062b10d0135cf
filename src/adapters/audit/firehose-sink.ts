/**
 * The AWS audit sink: Amazon Data Firehose (Direct PUT) delivering to the Object Lock bucket. One
 * append = one PutRecordBatch call with ONE Firehose record holding all the lines (Firehose bills
 * each record rounded up to 5 KB, so packing a group into one record is what makes it cheap), which
 * also makes an append all-or-nothing: a record Firehose reports failed fails the append.
 */
import { type FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import type { AuditSink } from '../../core/audit/ports.js';

/** Firehose's limit for one record is 1,000 KiB; the writer's chunks stay well below. */
export const FIREHOSE_MAX_RECORD_BYTES = 1_000 * 1024;

export class FirehoseAuditSink implements AuditSink {
  constructor(
    private readonly client: FirehoseClient,
    private readonly streamName: string,
  ) {}

  async append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    const data = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    if (data.length > FIREHOSE_MAX_RECORD_BYTES) throw new Error(`audit group of ${data.length} bytes exceeds one Firehose record (${FIREHOSE_MAX_RECORD_BYTES})`);
    const output = await this.client.send(new PutRecordBatchCommand({ DeliveryStreamName: this.streamName, Records: [{ Data: data }] }));
    if ((output.FailedPutCount ?? 0) > 0) {
      const failure = output.RequestResponses?.find((response) => response.ErrorCode);
      throw new Error(`Firehose refused the audit record: ${failure?.ErrorCode ?? 'unknown'} ${failure?.ErrorMessage ?? ''}`.trim());
    }
  }
}
