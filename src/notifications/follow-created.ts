import * as z from 'zod';
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '../core/model/keys.js';
import { defineNotificationType, displayName } from './notification-type.js';

/** Notifies the followee and adds the edge actor -> followee to the graph. */
export const followCreated = defineNotificationType({
  detailType: 'follow.created',
  dataSchema: z.object({ followeeId: z.string().regex(IDENTIFIER_PATTERN, IDENTIFIER_RULE) }).strict(),
  defaultPriority: 'info',
  audience: 'recipients',
  digestible: true,
  graphEffect: 'follow',
  followeeOf: (data) => data.followeeId,
  recipientsFromData: (data) => [data.followeeId],
  channels: { push: false, email: false },
  render: ({ actor }) => ({ title: `${displayName(actor)} followed you`, body: '' }),
  category: 'social',
  tags: ['graph'],
});
