import * as z from 'zod';
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '../core/model/keys.js';
import { defineNotificationType } from './notification-type.js';

/** Removes the edge actor -> followee; no notification. */
export const followDeleted = defineNotificationType({
  detailType: 'follow.deleted',
  dataSchema: z.object({ followeeId: z.string().regex(IDENTIFIER_PATTERN, IDENTIFIER_RULE) }).strict(),
  defaultPriority: 'info',
  audience: 'none',
  digestible: false,
  graphEffect: 'unfollow',
  followeeOf: (data) => data.followeeId,
  render: () => ({ title: '', body: '' }),
});
