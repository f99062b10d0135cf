/**
 * The SMS channel's composition (AWS End User Messaging SMS): the provider on the configured
 * origination identity, the opt-out list and the spend guards on the Idempotency table, and the
 * inbound function that reads the service's inbound SNS topic (STOP opts the number out).
 */
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type * as z from 'zod';
import { DynamoSmsOptOutList, DynamoSmsSpendGuard } from '../adapters/dynamo/sms-records.js';
import { EndUserMessagingSmsProvider } from '../adapters/sms/end-user-messaging-sms-provider.js';
import { SMS_DAILY_LIMIT_DEFAULT, SMS_DAILY_LIMIT_PER_USER_DEFAULT, type SmsSpendLimits } from '../core/channels/sms.js';
import type { SmsOptOutList, SmsProvider, SmsSpendGuard } from '../core/channels/ports.js';
import type { Env } from '../env.js';
import { createSmsInboundHandler } from '../handlers/sms-inbound-handler.js';
import { integer, optionalString, parseEnv, required } from './config-parsing.js';
import { clientOptions, createParts, documentClient, instrumented, type Parts } from './parts.js';
import { Logger } from '@aws-lambda-powertools/logger';

export interface SmsProviderConfig {
  /** Phone number, sender id, pool or their ARN (`SMS_ORIGINATION_IDENTITY`). */
  originationIdentity: string;
  configurationSetName?: string;
  limits: SmsSpendLimits;
  /** The local stand-in (unset on AWS). */
  endpoint?: string;
}

export const smsProviderShape = {
  SMS_ORIGINATION_IDENTITY: optionalString,
  SMS_CONFIGURATION_SET: optionalString,
  SMS_DAILY_LIMIT_PER_USER: integer(SMS_DAILY_LIMIT_PER_USER_DEFAULT, 0),
  SMS_DAILY_LIMIT: integer(SMS_DAILY_LIMIT_DEFAULT, 0),
  SMS_ENDPOINT: optionalString,
};

export const smsProviderOf = (env: z.output<z.ZodObject<typeof smsProviderShape>>, originationIdentity: string): SmsProviderConfig => ({
  originationIdentity,
  ...(env.SMS_CONFIGURATION_SET ? { configurationSetName: env.SMS_CONFIGURATION_SET } : {}),
  limits: { perUserPerDay: env.SMS_DAILY_LIMIT_PER_USER, perDay: env.SMS_DAILY_LIMIT },
  ...(env.SMS_ENDPOINT ? { endpoint: env.SMS_ENDPOINT } : {}),
});

/** A local stand-in endpoint checks the same per-DATA_DIR signing credentials as the local SQS endpoint. */
function localEndpointOptions(parts: Parts, endpoint: string | undefined) {
  return endpoint ? { endpoint, ...(parts.aws.sqsCredentials ? { credentials: parts.aws.sqsCredentials } : {}) } : {};
}

export function smsProvider(parts: Parts, config: SmsProviderConfig): SmsProvider {
  return parts.shared(smsProvider, [config.originationIdentity, config.configurationSetName, config.endpoint], () =>
    new EndUserMessagingSmsProvider(instrumented(parts, new PinpointSMSVoiceV2Client({ ...clientOptions(parts), ...localEndpointOptions(parts, config.endpoint) })), {
      originationIdentity: config.originationIdentity,
      ...(config.configurationSetName ? { configurationSetName: config.configurationSetName } : {}),
    }),
  );
}

export function smsOptOutList(parts: Parts, idempotencyTable: string): SmsOptOutList {
  return parts.shared(smsOptOutList, [idempotencyTable], () => new DynamoSmsOptOutList(documentClient(parts), idempotencyTable));
}

export function smsSpendGuard(parts: Parts, idempotencyTable: string): SmsSpendGuard {
  return parts.shared(smsSpendGuard, [idempotencyTable], () => new DynamoSmsSpendGuard(documentClient(parts), idempotencyTable));
}

/** The SMS consumer's channel deps. */
export function smsChannel(parts: Parts, config: SmsProviderConfig, idempotencyTable: string) {
  return { provider: smsProvider(parts, config), optOuts: smsOptOutList(parts, idempotencyTable), spend: smsSpendGuard(parts, idempotencyTable), limits: config.limits };
}

export interface SmsInboundConfig {
  idempotencyTable: string;
}

export function smsInboundConfigFromEnv(env: Env): SmsInboundConfig {
  const parsed = parseEnv('sms inbound', { IDEMPOTENCY_TABLE: required }, env);
  return { idempotencyTable: parsed.IDEMPOTENCY_TABLE };
}

export function composeSmsInbound(parts: Parts, config: SmsInboundConfig) {
  return createSmsInboundHandler({ optOuts: smsOptOutList(parts, config.idempotencyTable), logger: parts.logger, clock: parts.clock });
}

export function smsInboundFunction(env: Env) {
  return composeSmsInbound(createParts({ logger: new Logger({ serviceName: 'sms-inbound' }) }), smsInboundConfigFromEnv(env));
}
