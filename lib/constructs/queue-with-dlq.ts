import { Duration } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { queueEncryption } from './data-protection.js';
import { Construct } from 'constructs';

export interface QueueWithDlqProps {
  /** Timeout of the Lambda function that consumes the queue; the visibility timeout is 6x it. */
  consumerTimeout: Duration;
  /** Receives before a message moves to the DLQ. */
  maxReceiveCount: number;
  /** An oldest message older than this raises the queue's age alarm. */
  maxMessageAge: Duration;
  /** What the queue carries, for the dashboard and alarm descriptions. */
  purpose: string;
  /**
   * A dead-letter queue shared with other queues (its owner alarms on it); default one of its own.
   * A redrive (StartMessageMoveTask) still returns each message to the queue it came from.
   */
  sharedDeadLetterQueue?: Queue;
}

/**
 * An SQS queue with its dead-letter queue, defaults as data: SSE-SQS encryption (or the registered customer-managed key), TLS-only policy,
 * visibility timeout 6x the consumer's timeout (AWS guidance for Lambda event sources), 14 days
 * retention in the DLQ so a redrive is possible after a long weekend.
 */
export class QueueWithDlq extends Construct {
  /** The AWS guidance: visibility timeout at least six times the function timeout. */
  static readonly VISIBILITY_FACTOR = 6;

  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly visibilityTimeout: Duration;
  readonly maxMessageAge: Duration;
  readonly purpose: string;
  /** Receives before a message moves to the DLQ. */
  readonly maxReceiveCount: number;
  /** Whether `deadLetterQueue` is another construct's (alarmed there), not this queue's own. */
  readonly sharesDeadLetterQueue: boolean;

  constructor(scope: Construct, id: string, props: QueueWithDlqProps) {
    super(scope, id);
    this.visibilityTimeout = Duration.seconds(props.consumerTimeout.toSeconds() * QueueWithDlq.VISIBILITY_FACTOR);
    this.maxMessageAge = props.maxMessageAge;
    this.purpose = props.purpose;
    this.maxReceiveCount = props.maxReceiveCount;
    this.sharesDeadLetterQueue = props.sharedDeadLetterQueue !== undefined;
    this.deadLetterQueue =
      props.sharedDeadLetterQueue ??
      new Queue(this, 'Dlq', {
        ...queueEncryption(this),
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
    this.queue = new Queue(this, 'Queue', {
      ...queueEncryption(this),
      enforceSSL: true,
      visibilityTimeout: this.visibilityTimeout,
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
