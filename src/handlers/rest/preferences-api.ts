/** REST handler of `GET /preferences` and `PUT /preferences` (the caller's own preferences only). */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { ChannelSwitch } from '../../contract/channels.js';
import type { Clock } from '../../core/ports/clock.js';
import { type Preferences } from '../../core/preferences/preferences.js';
import type { PreferencesStore } from '../../core/preferences/store.js';
import { errorBody, identityFrom, json, parseJsonBody, restDispatcher, type RestHandler } from './http.js';
import { channelsRoutes, type ChannelsApiDeps } from './channels-api.js';
import { alertsRoutes, type AlertsApiDeps } from './alerts-api.js';
import { noQuerySchema } from '../../contract/rest-schemas.js';
import { preferencesInputSchema } from '../../contract/preferences-schemas.js';

export interface PreferencesApiDeps {
  store: PreferencesStore;
  /** The catalog's notification types that produce notifications (mutable / switchable). */
  knownTypes: readonly string[];
  /** The channels each type offers (push, email): switching another is a 400. */
  offeredChannels?: (type: string) => readonly ChannelSwitch[];
  tenantClaim: string;
  /** Origins allowed to call from a browser (`*` or exact origins). */
  corsAllowOrigins: readonly string[];
  clock: Clock;
  logger: Logger;
  /** The channels' routes (devices, consent, email address, unsubscribe), served by this function. */
  channels?: Omit<ChannelsApiDeps, 'knownTypes' | 'tenantClaim' | 'clock'>;
  /** Post alerts (`PUT / DELETE /alerts/{accountId}`), served by this function. */
  alerts?: Omit<AlertsApiDeps, 'tenantClaim' | 'clock'>;
}

type Handler = RestHandler;

function present(preferences: Preferences) {
  const { timeZone, quietHours, mutedTypes, liveDelivery, updatedAt, channels } = preferences;
  return { timeZone, quietHours, mutedTypes, liveDelivery, updatedAt, ...(channels && Object.keys(channels).length > 0 ? { channels } : {}) };
}

export function createPreferencesHandler(deps: PreferencesApiDeps): Handler {
  const inputSchema = preferencesInputSchema(deps.knownTypes, deps.offeredChannels);
  const routes: Record<string, Handler> = {
    ...(deps.channels ? channelsRoutes({ ...deps.channels, knownTypes: deps.knownTypes, tenantClaim: deps.tenantClaim, clock: deps.clock, logger: deps.logger }) : {}),
    ...(deps.alerts ? alertsRoutes({ ...deps.alerts, tenantClaim: deps.tenantClaim, clock: deps.clock }) : {}),
    'GET /preferences': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      noQuerySchema.parse(event.queryStringParameters ?? {});
      const lookup = (await deps.store.getPreferences(user.tenantId, [user.userId])).get(user.userId);
      if (!lookup || lookup.status === 'unreadable') {
        // Delivery fails closed on such a row; the user can PUT a fresh document to repair it.
        deps.logger.warn('unreadable preferences row', { tenantId: user.tenantId, userId: user.userId, reason: lookup?.status === 'unreadable' ? lookup.reason : 'missing' });
        return json(409, errorBody('preferences_unreadable', 'the saved preferences cannot be read by this version (e.g. a time zone no longer known); PUT new preferences'));
      }
      return json(200, present(lookup.preferences));
    },
    'PUT /preferences': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      noQuerySchema.parse(event.queryStringParameters ?? {});
      const input = inputSchema.parse(parseJsonBody(event));
      const preferences: Preferences = { ...input, updatedAt: new Date(deps.clock.nowMs()).toISOString() };
      await deps.store.putPreferences(user.tenantId, user.userId, preferences);
      return json(200, present(preferences));
    },
  };
  return restDispatcher(routes, deps);
}
