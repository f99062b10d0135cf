// The team's catalog module: what `NotificationInbox` gets as `catalogEntry` and the local runtime
// as `CATALOG_ENTRY`. It must export `catalog`. The built-in types it keeps come from their own
// entries, so each function bundle holds only the types it uses.
import { followCreated } from 'serverless-notifications/catalog/built-in/follow-created';
import { followDeleted } from 'serverless-notifications/catalog/built-in/follow-deleted';
import { invoicePaid } from './invoice-paid.js';

export const catalog = [invoicePaid, followCreated, followDeleted];
