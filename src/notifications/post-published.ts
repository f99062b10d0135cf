import * as z from 'zod';
import { defineNotificationType, linkUrlSchema, displayName } from './notification-type.js';

export const postPublished = defineNotificationType({
  detailType: 'post.published',
  dataSchema: z.object({ postId: z.string().min(1).max(256), title: z.string().min(1).max(500), url: linkUrlSchema.optional() }).strict(),
  defaultPriority: 'info',
  audience: 'followersOfActor',
  digestible: false,
  channels: { push: false },
  // Followers who turned alerts on for the author (the bell on a profile) are pushed every post.
  followerAlerts: true,
  render: ({ actor, data }) => ({ title: `${displayName(actor)} published a post`, body: data.title }),
  category: 'posts',
  tags: ['feed'],
  links: (data) => (data.url === undefined ? {} : { actionUrl: data.url }),
});
