import * as z from 'zod';
import { TYPE_NAME_PATTERN } from '../core/model/ids.js';
import { defineNotificationType } from './notification-type.js';

/**
 * A producer withdraws an event it sent: its notifications leave every recipient's list and counts
 * (one tenant-level record, not one write per recipient). Send the original's `recipients` or
 * `audience` too so connected devices drop it live. No notification of its own.
 */
export const notificationRetracted = defineNotificationType({
  detailType: 'notification.retracted',
  dataSchema: z
    .object({
      eventId: z.string().min(1).max(256),
      type: z.string().regex(TYPE_NAME_PATTERN, 'must be a notification type such as mention.created'),
    })
    .strict(),
  defaultPriority: 'urgent',
  audience: 'none',
  digestible: false,
  retraction: (data) => data,
  render: () => ({ title: '', body: '' }),
});
