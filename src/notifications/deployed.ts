/**
 * The catalog the deployed functions serve. `#notifications-catalog` (package.json `imports`) is the
 * package's own catalog (`./index.ts`); a `NotificationInbox` with `catalogEntry` aliases it to the
 * team's module at bundling, so functions carry the team's types instead of the built-in ones.
 * Runtime code reads the catalog from here, never from `./index.ts` directly.
 */
import { catalog as bundledCatalog } from '#notifications-catalog';
import type { NotificationType } from '../core/ports/notification-type.js';

export const catalog: readonly NotificationType[] = bundledCatalog;

const byDetailType = new Map(catalog.map((type) => [type.detailType, type]));

export function findNotificationType(detailType: string): NotificationType | undefined {
  return byDetailType.get(detailType);
}
