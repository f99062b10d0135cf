/** The preferences function (GET/PUT /preferences and the channel routes): its config and its composition. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import { CHANNELS, type ChannelSwitch } from '../contract/channels.js';
import { offersChannel } from '../core/model/channel.js';
import type { Env } from '../env.js';
import { createPreferencesHandler } from '../handlers/rest/preferences-api.js';
import { deployedCatalog, findNotificationType } from '../notifications/deployed.js';
import { followGraphRepository } from './follow-graph.js';
import { alertSubscriptions, channelRepository, pushProviderOf, pushProviderShape, snsPushProvider, type PushProviderConfig } from './channels.js';
import { optionalString, parseEnv, required } from './config-parsing.js';
import { createParts, preferencesRepository, type Parts } from './parts.js';
import { restOf, restShape, type RestConfig } from './shared-config.js';

export interface PreferencesApiConfig extends RestConfig {
  graphTable: string;
  /** Devices, consent, email address and unsubscribe routes (served by the same function): push needs platform apps, unsubscribe its key. */
  channels?: { push: PushProviderConfig; unsubscribeSecret?: string };
}

export function preferencesApiConfigFromEnv(env: Env): PreferencesApiConfig {
  const parsed = parseEnv('preferences', { GRAPH_TABLE: required, ...restShape, ...pushProviderShape, UNSUBSCRIBE_SECRET: optionalString }, env);
  return {
    graphTable: parsed.GRAPH_TABLE,
    ...restOf(parsed),
    channels: { push: pushProviderOf(parsed), ...(parsed.UNSUBSCRIBE_SECRET ? { unsubscribeSecret: parsed.UNSUBSCRIBE_SECRET } : {}) },
  };
}

/** The types a user can mute or switch to inbox-only: every catalog type that produces notifications. */
export function notifyingTypes(): string[] {
  return deployedCatalog().filter((type) => type.audience !== 'none').map((type) => type.detailType);
}

/** The channels a type offers (its catalog file), and `escalation` when it escalates. */
export function offeredChannels(type: string): ChannelSwitch[] {
  const found = findNotificationType(type);
  return [...CHANNELS.filter((channel) => offersChannel(found, channel)), ...(found?.escalation ? (['escalation'] as const) : [])];
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
    // Post alerts push: served where push is configured (the construct grants their writes with the channels').
    ...(push && Object.keys(push.platformApplications).length > 0 ? { alerts: { subscriptions: alertSubscriptions(parts, config.graphTable), graph: followGraphRepository(parts, config.graphTable) } } : {}),
  });
}

export function preferencesFunction(env: Env) {
  return composePreferences(createParts({ logger: new Logger({ serviceName: 'preferences-api' }) }), preferencesApiConfigFromEnv(env));
}
