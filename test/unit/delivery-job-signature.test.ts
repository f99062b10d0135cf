import { describe, expect, it } from 'vitest';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Priority } from '../../src/core/jobs/delivery-job.js';
import { hasValidDeliveryJobSignature, signedDeliveryJobBody, SNOOZE_EVENT_ID_PREFIX } from '../../src/core/jobs/delivery-job-signature.js';
import type { DeliveryInput, DeliveryReport } from '../../src/core/live/delivery-batch.js';
import { createDeliveryHandler } from '../../src/handlers/delivery-handler.js';
import { aRecipientsJob, aRenderedNotification } from '../support/delivery-fixtures.js';
import { anSqsEvent, anSqsRecord } from '../support/events.js';

const secret = 'fan-out-and-delivery-only';
const alice = { tenantId: 'acme', userId: 'alice' };

class FakeDelivery {
  readonly inputs: DeliveryInput[] = [];
  async deliver(inputs: readonly DeliveryInput[], _mode: Priority): Promise<DeliveryReport> {
    this.inputs.push(...inputs);
    return { failedRecordIds: new Set(), messagesSent: 0, duplicatesSkipped: 0, goneConnections: 0 };
  }
}

describe('delivery job signatures', () => {
  it('verify the body the fan-out signed, with unicode and numbers in the notification, and nothing else', () => {
    // Prepare
    const job = aRecipientsJob({ recipients: [alice], notification: aRenderedNotification({ title: 'Zoë ✓ 1e21', data: { count: 1e21, ratio: 0.1, nested: { a: [1, 'x'] } } }) });
    const body = signedDeliveryJobBody(job, secret);
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const tampered = { ...parsed, notification: { ...(parsed.notification as object), title: 'pwned' } };

    // Assess
    expect(hasValidDeliveryJobSignature(parsed, secret)).toBe(true);
    expect(hasValidDeliveryJobSignature(parsed, 'another')).toBe(false);
    expect(hasValidDeliveryJobSignature(tampered, secret)).toBe(false);
    expect(hasValidDeliveryJobSignature({ ...job }, secret)).toBe(false);
    expect(hasValidDeliveryJobSignature({ ...parsed, sig: 'short' }, secret)).toBe(false);
  });

  it('the handler delivers signed jobs and drops forged ones without a retry', async () => {
    // Prepare
    const delivery = new FakeDelivery();
    const handler = createDeliveryHandler({ delivery, mode: 'urgent', logger: new Logger({ logLevel: 'SILENT' }), deliveryJobSecret: secret });
    const signed = anSqsRecord(signedDeliveryJobBody(aRecipientsJob({ recipients: [alice] }), secret), 'm-signed');
    const forged = anSqsRecord(JSON.stringify(aRecipientsJob({ recipients: [alice] })), 'm-forged');
    const otherKey = anSqsRecord(signedDeliveryJobBody(aRecipientsJob({ recipients: [alice] }), 'guessed'), 'm-other-key');

    // Act
    const response = await handler(anSqsEvent([signed, forged, otherKey]));

    // Assess
    expect(delivery.inputs.map((input) => input.recordId)).toEqual(['m-signed']);
    expect(response.batchItemFailures).toEqual([]);
  });

  it('the snooze key signs a one-recipient urgent comeback and nothing else: a wider job signed with it is dropped like a forgery', async () => {
    // Prepare: REST write holds the snooze key, never the fan-out's.
    const snoozeKey = 'rest-write-and-urgent-delivery-only';
    const delivery = new FakeDelivery();
    const handler = createDeliveryHandler({ delivery, mode: 'urgent', logger: new Logger({ logLevel: 'SILENT' }), deliveryJobSecret: secret, snoozeJobSecret: snoozeKey });
    const comeback = aRecipientsJob({ recipients: [alice], eventId: `${SNOOZE_EVENT_ID_PREFIX}01J0000000000000000000000A`, priority: 'urgent' });
    const records = [
      anSqsRecord(signedDeliveryJobBody(comeback, snoozeKey), 'm-comeback'),
      anSqsRecord(signedDeliveryJobBody({ ...comeback, target: { kind: 'recipients', recipients: [{ userId: 'alice', notificationId: comeback.target.kind === 'recipients' ? comeback.target.recipients[0]!.notificationId : '' }, { userId: 'bob', notificationId: '01J0000000000000000000000B' }] } }, snoozeKey), 'm-two-recipients'),
      anSqsRecord(signedDeliveryJobBody({ ...comeback, eventId: 'evt-1' }, snoozeKey), 'm-not-a-comeback'),
      anSqsRecord(signedDeliveryJobBody({ ...comeback, priority: 'info' }, snoozeKey), 'm-info'),
      anSqsRecord(signedDeliveryJobBody({ ...comeback, target: { kind: 'onlineFollowers', actorId: 'celebrity', notificationId: '01J0000000000000000000000C' } }, snoozeKey), 'm-celebrity'),
      anSqsRecord(signedDeliveryJobBody({ ...comeback, retracted: { eventId: 'evt-2', arrivalMs: 1 } }, snoozeKey), 'm-retraction'),
    ];

    // Act
    const response = await handler(anSqsEvent(records));
    const infoDelivery = new FakeDelivery();
    await createDeliveryHandler({ delivery: infoDelivery, mode: 'info', logger: new Logger({ logLevel: 'SILENT' }), deliveryJobSecret: secret })(anSqsEvent([records[0]!]));

    // Assess
    expect(delivery.inputs.map((input) => input.recordId)).toEqual(['m-comeback']);
    expect(response.batchItemFailures).toEqual([]);
    expect(infoDelivery.inputs).toEqual([]);
  });
});
