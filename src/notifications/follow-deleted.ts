import { z } from 'zod';
import { defineNotificationType } from './notification-type.js';

/** Removes the edge actor -> followee; no notification. */
export const followDeleted = defineNotificationType({
  detailType: 'follow.deleted',
  dataSchema: z.object({ followeeId: z.string().min(1).max(128) }).strict(),
  defaultPriority: 'info',
  audience: 'none',
  digestible: false,
  graphEffect: 'unfollow',
  render: () => ({ title: '', body: '' }),
});
