/**
 * Typed producer helper (`serverless-notifications/producer`): `publishNotification(client,
 * 'mention.created', { ... })` checks the event's `data` against the catalog type at compile time
 * and puts it on the notifications bus with the real EventBridge SDK.
 */
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { EventEnvelope } from '../core/fanout/events.js';
import type { catalogTypes } from '../notifications/index.js';

type CatalogType = (typeof catalogTypes)[number];
/** Every detail type of the catalog. */
export type NotificationDetailType = CatalogType['detailType'];
/** The `data` of one catalog type. */
export type NotificationData<D extends NotificationDetailType> = Extract<CatalogType, { detailType: D }> extends { dataSchema: { _zod: { output: infer Data } } } ? Data : never;
/** A producer event of one type: the envelope (CONTRACT.md "Events") with that type's data. */
export type NotificationEventOf<D extends NotificationDetailType> = Omit<EventEnvelope, 'data'> & { data: NotificationData<D> };

export interface PublishOptions {
  /** Default `notifications` (the `eventBusName` setting). */
  eventBusName?: string;
  /** EventBridge `Source` (default `app.producer`); the rules match on the detail type only. */
  source?: string;
}

export class PublishError extends Error {
  override readonly name = 'PublishError';
}

/** Puts one event on the bus; throws `PublishError` with EventBridge's reason when the entry is refused. */
export async function publishNotification<D extends NotificationDetailType>(client: Pick<EventBridgeClient, 'send'>, detailType: D, event: NotificationEventOf<D>, options: PublishOptions = {}): Promise<string> {
  const output = await client.send(
    new PutEventsCommand({ Entries: [{ EventBusName: options.eventBusName ?? 'notifications', Source: options.source ?? 'app.producer', DetailType: detailType, Detail: JSON.stringify(event) }] }),
  );
  const [entry] = output.Entries ?? [];
  if ((output.FailedEntryCount ?? 0) > 0 || !entry?.EventId) throw new PublishError(`${detailType} refused: ${entry?.ErrorCode ?? 'unknown'} ${entry?.ErrorMessage ?? ''}`.trim());
  return entry.EventId;
}
