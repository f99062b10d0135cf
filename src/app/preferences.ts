/** Composition of the preferences function: GET /preferences, PUT /preferences. */
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import { createPreferencesHandler } from '../handlers/rest/preferences-api.js';
import { catalog } from '../notifications/deployed.js';
import { preferencesApiConfigFromEnv, type Env, type PreferencesApiConfig } from './config.js';
import { createParts, preferencesRepository, type Parts } from './parts.js';

/** The types a user can mute or switch to inbox-only: every catalog type that produces notifications. */
export function notifyingTypes(): string[] {
  return catalog.filter((type) => type.audience !== 'none').map((type) => type.detailType);
}

export function composePreferences(parts: Parts, config: PreferencesApiConfig) {
  return createPreferencesHandler({
    store: preferencesRepository(parts, config.graphTable),
    knownTypes: notifyingTypes(),
    tenantClaim: config.tenantClaim ?? DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: config.corsAllowOrigins,
    clock: parts.clock,
    logger: parts.logger,
  });
}

export function preferencesFunction(env: Env) {
  return composePreferences(createParts({ logger: new Logger({ serviceName: 'preferences-api' }) }), preferencesApiConfigFromEnv(env));
}
