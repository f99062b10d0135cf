/** The audit backlog: an SQS queue (encrypted, 14-day retention, its own DLQ) the drainer empties into the sink. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { AuditBacklog, AuditBacklogMessage } from '../../core/audit/ports.js';

export class SqsAuditBacklog implements AuditBacklog {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async put(message: AuditBacklogMessage): Promise<void> {
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) }));
  }
}
