// A team's own notification type, written as docs/construct-library.md shows: its own file,
// against the package's light `catalog` entry (no aws-cdk-lib: this module is bundled into the functions).
import * as z from 'zod';
import { defineNotificationType, displayName } from 'serverless-notifications/catalog';

export const invoicePaid = defineNotificationType({
  detailType: 'invoice.paid',
  dataSchema: z
    .object({
      invoiceId: z.string().min(1).max(64),
      amountCents: z.number().int().nonnegative(),
      url: z.url({ protocol: /^https?$/ }).max(2_048),
    })
    .strict(),
  defaultPriority: 'urgent',
  audience: 'recipients',
  digestible: false,
  render: ({ actor, data }) => ({ title: `${displayName(actor)} paid invoice ${data.invoiceId}`, body: `${(data.amountCents / 100).toFixed(2)} received` }),
  category: 'billing',
  links: (data) => ({ actionUrl: data.url, actions: [{ label: 'View invoice', url: data.url }] }),
});
