/** The typed producer helper: data checked against the catalog type at compile time, one PutEvents entry at run time. */
import type { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { defineNotificationType } from '../../src/notifications/authoring.js';
import { followCreated } from '../../src/notifications/follow-created.js';
import { publishNotification, publisherFor, PublishError } from '../../src/producer/index.js';

function fakeClient(answer: { FailedEntryCount: number; Entries: { EventId?: string; ErrorCode?: string; ErrorMessage?: string }[] }) {
  const sent: PutEventsCommand[] = [];
  return { sent, send: async (command: PutEventsCommand) => (sent.push(command), answer) } as unknown as { sent: PutEventsCommand[]; send: never };
}

describe('publishNotification', () => {
  it('puts one entry with the detail type and the event as detail', async () => {
    // Prepare
    const client = fakeClient({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    const event = { id: 'm-1', tenantId: 'acme', actor: { id: 'auth0|bob' }, recipients: ['google-oauth2|1234'], data: { postId: 'p-1', excerpt: 'hey' } };

    // Act
    const eventId = await publishNotification(client, 'mention.created', event, { eventBusName: 'bus' });

    // Assess
    expect(eventId).toBe('e-1');
    expect(client.sent[0]!.input.Entries).toEqual([{ EventBusName: 'bus', Source: 'app.producer', DetailType: 'mention.created', Detail: JSON.stringify(event) }]);
  });

  it('throws with the reason when the entry is refused, and refuses wrong data at compile time', async () => {
    // Prepare
    const client = fakeClient({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InvalidArgument', ErrorMessage: 'detail.data.postId' }] });

    // Act + Assess
    // @ts-expect-error mention.created data needs postId and excerpt
    await expect(publishNotification(client, 'mention.created', { id: 'm-2', tenantId: 'acme', actor: { id: 'bob' }, recipients: ['alice'], data: { title: 'x' } })).rejects.toThrow(PublishError);
    // @ts-expect-error not a catalog type
    await expect(publishNotification(client, 'nope.created', { id: 'x', tenantId: 'acme', actor: { id: 'bob' }, data: {} })).rejects.toThrow(/InvalidArgument/);
  });

  it('types a team catalog of its own: publisherFor(catalog) checks that catalog\'s data', async () => {
    // Prepare: a team's type beside a built-in one, as a team's notifications/index.ts lists them.
    const invoicePaid = defineNotificationType({
      detailType: 'invoice.paid',
      dataSchema: z.object({ invoiceId: z.string(), amountCents: z.number().int() }).strict(),
      defaultPriority: 'urgent',
      audience: 'recipients',
      digestible: false,
      render: ({ data }) => ({ title: `Invoice ${data.invoiceId} paid`, body: '' }),
    });
    const catalog = [invoicePaid, followCreated];
    const publish = publisherFor(catalog);
    const client = fakeClient({ FailedEntryCount: 0, Entries: [{ EventId: 'e-9' }] });
    const event = { id: 'inv-1', tenantId: 'acme', actor: { id: 'billing' }, recipients: ['alice'], data: { invoiceId: 'INV-1', amountCents: 1200 } };

    // Act
    const eventId = await publish(client, 'invoice.paid', event);
    // @ts-expect-error invoice.paid data needs amountCents
    void publish(client, 'invoice.paid', { ...event, data: { invoiceId: 'INV-2' } });
    // @ts-expect-error mention.created is not in this catalog
    void publish(client, 'mention.created', { ...event, data: { postId: 'p', excerpt: 'x' } });
    // @ts-expect-error the built-in catalog (registered by default) has no invoice.paid
    void publishNotification(client, 'invoice.paid', event);

    // Assess
    expect(eventId).toBe('e-9');
    expect(client.sent[0]!.input.Entries![0]).toMatchObject({ DetailType: 'invoice.paid', Detail: JSON.stringify(event) });
  });
});
