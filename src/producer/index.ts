/**
 * Typed producer helper (`serverless-notifications/producer`): `publishNotification(client,
 * 'invoice.paid', { ... })` checks the event's `data` against the catalog type at compile time
 * and puts it on the notifications bus with the real EventBridge SDK.
 *
 * Which catalog: the package's built-in types, until the app registers its own once:
 *
 *     declare module 'serverless-notifications/producer' {
 *       interface Register { catalog: typeof catalog } // your notifications/index.ts
 *     }
 *
 * or `publisherFor(catalog)`, typed by the catalog passed (no declaration needed).
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { putEntries, PutEntriesError } from './put-entries.js';
import type { EventEnvelope } from '../core/fanout/events.js';
import type { catalogTypes } from '../notifications/index.js';

/**
 * Where an app names its catalog for `publishNotification` (declaration merging, above). Empty
 * here on purpose: the registered `catalog` replaces the built-in one.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the app's declaration merging
export interface Register {}

/** Any list of catalog types (`defineNotificationType` results), `as const` or not. */
type AnyCatalog = readonly { detailType: string; dataSchema: unknown }[];
/** The app's registered catalog, else the package's. */
export type RegisteredCatalog = Register extends { catalog: infer Catalog extends AnyCatalog } ? Catalog : typeof catalogTypes;

type TypeOf<Catalog extends AnyCatalog> = Catalog[number];
/** Every detail type of the catalog. */
export type NotificationDetailType<Catalog extends AnyCatalog = RegisteredCatalog> = TypeOf<Catalog>['detailType'];
/** The `data` of one catalog type. */
export type NotificationData<D extends NotificationDetailType<Catalog>, Catalog extends AnyCatalog = RegisteredCatalog> =
  Extract<TypeOf<Catalog>, { detailType: D }> extends { dataSchema: { _zod: { output: infer Data } } } ? Data : never;
/** A producer event of one type: the envelope (CONTRACT.md "Events") with that type's data. */
export type NotificationEventOf<D extends NotificationDetailType<Catalog>, Catalog extends AnyCatalog = RegisteredCatalog> = Omit<EventEnvelope, 'data'> & {
  data: NotificationData<D, Catalog>;
};

export interface PublishOptions {
  /** Default `notifications` (the `eventBusName` setting). */
  eventBusName?: string;
  /** EventBridge `Source` (default `app.producer`); the rules match on the detail type only. */
  source?: string;
}

export class PublishError extends Error {
  override readonly name = 'PublishError';
}

type EventBridgeSender = Pick<EventBridgeClient, 'send'>;

async function putEvent(client: EventBridgeSender, detailType: string, event: unknown, options: PublishOptions): Promise<string> {
  const entry = { EventBusName: options.eventBusName ?? 'notifications', Source: options.source ?? 'app.producer', DetailType: detailType, Detail: JSON.stringify(event) };
  // A throttled entry (the PutEvents quota, the local intake's back-pressure) is resent after a backoff.
  let eventId: string | undefined;
  try {
    eventId = (await putEntries(client, [entry]))[0]?.EventId;
  } catch (error) {
    if (error instanceof PutEntriesError) throw new PublishError(`${detailType} refused: ${error.message}`);
    throw error;
  }
  if (!eventId) throw new PublishError(`${detailType} refused: no event id in the answer`);
  return eventId;
}

/** Puts one event on the bus; throws `PublishError` with EventBridge's reason when the entry is refused. */
export async function publishNotification<D extends NotificationDetailType>(client: EventBridgeSender, detailType: D, event: NotificationEventOf<D>, options: PublishOptions = {}): Promise<string> {
  return putEvent(client, detailType, event, options);
}

/** `publishNotification` typed by the catalog passed, or named: `publisherFor<typeof catalog>()` (the value is only read for its type). */
export function publisherFor<const Catalog extends AnyCatalog>(_catalog?: Catalog) {
  return <D extends NotificationDetailType<Catalog>>(client: EventBridgeSender, detailType: D, event: NotificationEventOf<D, Catalog>, options: PublishOptions = {}): Promise<string> =>
    putEvent(client, detailType, event, options);
}

export { putEntries, PutEntriesError, type PutEntriesOptions } from './put-entries.js';
