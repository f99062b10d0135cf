/** What a local queue hands out: messages, and the handler shape of a Lambda SQS consumer. */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';

export type LocalSqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface LocalMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  sentAt: number;
  receiveCount: number;
  firstReceiveAt?: number;
  lastReceiveAt?: number;
  /** Sent with DelaySeconds: not received before this instant. */
  delayedUntil?: number;
  visibleAt: number;
  receiptHandle?: string;
  /** Held by a running consumer batch. */
  inFlight: boolean;
}

export interface SentMessage {
  messageId: string;
  body: string;
}
