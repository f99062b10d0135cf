import * as z from 'zod';
import { defineNotificationType, linkUrlSchema, displayName } from './notification-type.js';

export const commentCreated = defineNotificationType({
  detailType: 'comment.created',
  dataSchema: z
    .object({ postId: z.string().min(1).max(256), commentId: z.string().min(1).max(256), excerpt: z.string().max(1_000), url: linkUrlSchema.optional() })
    .strict(),
  defaultPriority: 'info',
  audience: 'recipients',
  digestible: true,
  channels: { push: false, email: true },
  render: ({ actor, data }) => ({ title: `${displayName(actor)} commented on your post`, body: data.excerpt }),
  category: 'social',
  tags: ['direct', 'thread'],
  links: (data) => (data.url === undefined ? {} : { actionUrl: data.url }),
});
