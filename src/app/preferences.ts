/** Composition of the preferences function: GET /preferences, PUT /preferences. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import { createPreferencesHandler } from '../handlers/rest/preferences-api.js';
import { offersChannel } from '../core/model/channel.js';
import { catalog, findNotificationType } from '../notifications/deployed.js';
import { channelRepository, snsPushProvider } from './channels.js';
import { preferencesApiConfigFromEnv, type Env, type PreferencesApiConfig } from './config.js';
import { createParts, preferencesRepository, type Parts } from './parts.js';
import { CHANNELS, type Channel } from '../contract/channels.js';

/** The types a user can mute or switch to inbox-only: every catalog type that produces notifications. */
export function notifyingTypes(): string[] {
  return catalog.filter((type) => type.audience !== 'none').map((type) => type.detailType);
}

/** The channels a type offers (its catalog file). */
export function offeredChannels(type: string): Channel[] {
  return CHANNELS.filter((channel) => offersChannel(findNotificationType(type), channel));
}

export function composePreferences(parts: Parts, config: PreferencesApiConfig) {
  const push = config.channels?.push;
  return createPreferencesHandler({
    store: preferencesRepository(parts, config.graphTable),
    knownTypes: notifyingTypes(),
    offeredChannels,
    tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: config.corsAllowOrigins,
    clock: parts.clock,
    logger: parts.logger,
    channels: {
      store: channelRepository(parts, config.graphTable),
      ...(push && Object.keys(push.platformApplications).length > 0 ? { endpoints: snsPushProvider(parts, push) } : {}),
      ...(config.channels?.unsubscribeSecret ? { unsubscribeSecret: config.channels.unsubscribeSecret } : {}),
    },
  });
}

export function preferencesFunction(env: Env) {
  return composePreferences(createParts({ logger: new Logger({ serviceName: 'preferences-api' }) }), preferencesApiConfigFromEnv(env));
}
