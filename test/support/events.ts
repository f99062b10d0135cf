/** Typed fixture factories for producer events (CONTRACT.md "Events") and intake SQS records. */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { putEntries } from '../../src/producer/put-entries.js';
import type { EventEnvelope, NotificationEvent } from '../../src/core/fanout/events.js';

let sequence = 0;
/** A producer event id unique within the test run. */
export function uniqueEventId(prefix = 'evt'): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${sequence}`;
}

export function aMention(overrides: Partial<EventEnvelope> = {}): EventEnvelope {
  return {
    id: uniqueEventId('mention'),
    tenantId: 'acme',
    actor: { id: 'bob', name: 'Bob' },
    recipients: ['alice'],
    data: { postId: 'p-1', excerpt: 'hey @alice' },
    ...overrides,
  };
}

/** A comment.created envelope for one recipient (digestible, info by default). */
export function aComment(recipient: string, overrides: Partial<EventEnvelope> = {}): EventEnvelope {
  return { id: uniqueEventId('comment'), tenantId: 'acme', actor: { id: 'bob', name: 'Bob' }, recipients: [recipient], data: { postId: 'p-1', commentId: uniqueEventId('c'), excerpt: 'nice post' }, ...overrides };
}

export function aPost(actorId: string, overrides: Partial<EventEnvelope> = {}): EventEnvelope {
  return {
    id: uniqueEventId('post'),
    tenantId: 'acme',
    actor: { id: actorId, name: actorId.toUpperCase() },
    data: { postId: uniqueEventId('p'), title: `a post by ${actorId}` },
    ...overrides,
  };
}

export function aFollow(followerId: string, followeeId: string, overrides: Partial<EventEnvelope> = {}): EventEnvelope {
  return { id: uniqueEventId('follow'), tenantId: 'acme', actor: { id: followerId }, data: { followeeId }, ...overrides };
}

export function anUnfollow(followerId: string, followeeId: string, overrides: Partial<EventEnvelope> = {}): EventEnvelope {
  return { id: uniqueEventId('unfollow'), tenantId: 'acme', actor: { id: followerId }, data: { followeeId }, ...overrides };
}

/** A PutEvents entry; `detail` may be any JSON (invalid envelopes are test cases). */
export function putEntry(detailType: string, detail: unknown, busName = 'notifications'): PutEventsRequestEntry {
  return { EventBusName: busName, Source: 'test.producer', DetailType: detailType, Detail: JSON.stringify(detail) };
}

/**
 * PutEvents in calls of 10, as a producer must: entries answered `ThrottlingException` (the local
 * intake back-pressure) are sent again after a backoff; any other failed entry throws.
 */
export async function putAllEntries(client: Pick<EventBridgeClient, 'send'>, entries: readonly PutEventsRequestEntry[]): Promise<void> {
  await putEntries(client, entries, { maxAttempts: 50, delayMs: (attempt) => Math.min(1_000, 50 * 2 ** attempt) });
}

/** The EventBridge event as an intake queue body. */
export function eventBridgeBody(detailType: string, detail: unknown, time = new Date().toISOString()): string {
  return JSON.stringify({ version: '0', id: uniqueEventId('eb'), 'detail-type': detailType, source: 'test.producer', account: '000000000000', time, region: 'us-east-1', resources: [], detail });
}

export function anSqsRecord(body: string, messageId = uniqueEventId('msg')): SQSRecord {
  return {
    messageId,
    receiptHandle: `${messageId}-receipt`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'test', ApproximateFirstReceiveTimestamp: String(Date.now()) },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:IntakeTest',
    awsRegion: 'us-east-1',
  };
}

export function anSqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** A validated event as the fan-out service receives it. */
export function aNotificationEvent(overrides: Partial<NotificationEvent> = {}): NotificationEvent {
  return {
    type: 'mention.created',
    eventId: uniqueEventId('evt'),
    tenantId: 'acme',
    actor: { id: 'bob', name: 'Bob' },
    recipients: ['alice'],
    priority: 'urgent',
    timeMs: Date.UTC(2026, 0, 1),
    data: { postId: 'p-1', excerpt: 'hey' },
    ...overrides,
  };
}
