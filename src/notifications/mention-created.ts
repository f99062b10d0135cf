import * as z from 'zod';
import { defineNotificationType, displayName } from './notification-type.js';

export const mentionCreated = defineNotificationType({
  detailType: 'mention.created',
  dataSchema: z.object({ postId: z.string().min(1).max(256), excerpt: z.string().max(1_000) }).strict(),
  defaultPriority: 'urgent',
  audience: 'recipients',
  digestible: false,
  channels: { push: true, email: false },
  render: ({ actor, data }) => ({ title: `${displayName(actor)} mentioned you`, body: data.excerpt }),
});
