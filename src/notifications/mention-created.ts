import * as z from 'zod';
import { defineNotificationType, linkUrlSchema, displayName } from './notification-type.js';

export const mentionCreated = defineNotificationType({
  detailType: 'mention.created',
  dataSchema: z.object({ postId: z.string().min(1).max(256), excerpt: z.string().max(1_000), url: linkUrlSchema.optional() }).strict(),
  defaultPriority: 'urgent',
  audience: 'recipients',
  digestible: false,
  // SMS off unless the user switches it on for mentions (and opts in to SMS with a verified number).
  channels: { push: true, email: false, sms: false },
  // Still unseen 15 minutes after it arrived: one email (off per user with channels["mention.created"].escalation = false).
  escalation: { channel: 'email', afterSeconds: 900, when: 'unseen' },
  render: ({ actor, data }) => ({ title: `${displayName(actor)} mentioned you`, body: data.excerpt }),
  category: 'mentions',
  tags: ['direct'],
  links: (data) => (data.url === undefined ? {} : { actionUrl: data.url, actions: [{ label: 'Open', url: data.url }, { label: 'Reply', actionId: 'reply' }] }),
});
