/**
 * The catalog the deployed functions serve. `#notifications-catalog` (package.json `imports`) is the
 * package's own catalog (`./index.ts`); a `NotificationInbox` with `catalogEntry` aliases it to the
 * team's module at bundling, so functions carry the team's types instead of the built-in ones.
 * The local runtime runs every function in one process: with `CATALOG_ENTRY` it loads the team's
 * module the same way and serves it here before it composes any function.
 * Runtime code reads the catalog from here, never from `./index.ts` directly.
 */
import { catalog as bundledCatalog } from '#notifications-catalog';
import type { NotificationType } from '../core/ports/notification-type.js';

let served: readonly NotificationType[] = bundledCatalog;
let byDetailType = new Map(served.map((type) => [type.detailType, type]));

/** The catalog this process serves: the bundled one (always, on AWS), or the one the local runtime was given. */
export function deployedCatalog(): readonly NotificationType[] {
  return served;
}

export function findNotificationType(detailType: string): NotificationType | undefined {
  return byDetailType.get(detailType);
}

/** Local runtime only: serve `types` (a team's `CATALOG_ENTRY`), or the bundled catalog again with none. */
export function serveCatalog(types: readonly NotificationType[] = bundledCatalog): void {
  served = types;
  byDetailType = new Map(types.map((type) => [type.detailType, type]));
}
