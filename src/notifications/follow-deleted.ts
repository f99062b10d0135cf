import * as z from 'zod';
import { IDENTIFIER_PATTERN } from '../core/keys.js';
import { defineNotificationType } from './notification-type.js';

/** Removes the edge actor -> followee; no notification. */
export const followDeleted = defineNotificationType({
  detailType: 'follow.deleted',
  dataSchema: z.object({ followeeId: z.string().regex(IDENTIFIER_PATTERN, 'must match [A-Za-z0-9._@:+=-]{1,128}') }).strict(),
  defaultPriority: 'info',
  audience: 'none',
  digestible: false,
  graphEffect: 'unfollow',
  followeeOf: (data) => data.followeeId,
  render: () => ({ title: '', body: '' }),
});
