import { z } from 'zod';
import { defineNotificationType, displayName } from './notification-type.js';

/** Notifies the followee and adds the edge actor -> followee to the graph. */
export const followCreated = defineNotificationType({
  detailType: 'follow.created',
  dataSchema: z.object({ followeeId: z.string().min(1).max(128) }).strict(),
  defaultPriority: 'info',
  audience: 'recipients',
  digestible: true,
  graphEffect: 'follow',
  render: ({ actor }) => ({ title: `${displayName(actor)} followed you`, body: '' }),
});
