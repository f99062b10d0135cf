/**
 * The SMS channel's composition (AWS End User Messaging SMS): the provider on the configured
 * origination identity, the opt-out list and the spend guards on the Idempotency table, and the
 * inbound function that reads the service's inbound SNS topic (STOP opts the number out, START /
 * UNSTOP / YES back in on both lists, HELP answered: by the service, or from here when opt-outs are
 * self-managed).
 */
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import * as z from 'zod';
import { DynamoSmsAnswerGuard, DynamoSmsOptOutList, DynamoSmsSpendGuard } from '../adapters/dynamo/sms-records.js';
import { EndUserMessagingOptOutList } from '../adapters/sms/end-user-messaging-opt-out-list.js';
import { EndUserMessagingSmsProvider } from '../adapters/sms/end-user-messaging-sms-provider.js';
import { SMS_DAILY_LIMIT_DEFAULT, SMS_DAILY_LIMIT_PER_USER_DEFAULT, SMS_KEYWORD_ANSWERS_DEFAULT, type SmsKeywordAnswers, type SmsSpendLimits } from '../core/channels/sms.js';
import type { SmsOptOutList, SmsProvider, SmsSpendGuard } from '../core/channels/ports.js';
import type { Env } from '../env.js';
import { createSmsInboundHandler } from '../handlers/sms-inbound-handler.js';
import { ConfigError, integer, optionalString, parseEnv, required, unsetIfEmpty } from './config-parsing.js';
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

/** One End User Messaging SMS client per endpoint (the provider and the opt-out list share it). */
function smsClient(parts: Parts, endpoint: string | undefined): PinpointSMSVoiceV2Client {
  return parts.shared(smsClient, [endpoint], () => instrumented(parts, new PinpointSMSVoiceV2Client({ ...clientOptions(parts), ...localEndpointOptions(parts, endpoint) })));
}

export function smsProvider(parts: Parts, config: SmsProviderConfig): SmsProvider {
  return parts.shared(smsProvider, [config.originationIdentity, config.configurationSetName, config.endpoint], () =>
    new EndUserMessagingSmsProvider(smsClient(parts, config.endpoint), {
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
  /** The construct's inbound topic (records of another topic are dropped). */
  inboundTopicArn: string;
  /** The service's opt-out list of the origination identity (`Default` unless named otherwise). */
  optOutListName: string;
  /** The service's endpoint locally (unset on AWS). */
  endpoint?: string;
  /** Self-managed opt-outs: the keywords are answered from here, on this provider, within the day's texts in all. */
  answers?: { provider: SmsProviderConfig; texts: SmsKeywordAnswers };
}

const answerText = z.preprocess(unsetIfEmpty, z.string().min(1).max(320).optional());

export function smsInboundConfigFromEnv(env: Env): SmsInboundConfig {
  const parsed = parseEnv(
    'sms inbound',
    {
      IDEMPOTENCY_TABLE: required,
      SMS_INBOUND_TOPIC_ARN: required,
      SMS_OPT_OUT_LIST: optionalString,
      SMS_SELF_MANAGED_OPT_OUTS: z.preprocess(unsetIfEmpty, z.enum(['true', 'false']).default('false')),
      SMS_ANSWER_HELP: answerText,
      SMS_ANSWER_STOP: answerText,
      SMS_ANSWER_START: answerText,
      ...smsProviderShape,
    },
    env,
  );
  const selfManaged = parsed.SMS_SELF_MANAGED_OPT_OUTS === 'true';
  if (selfManaged && !parsed.SMS_ORIGINATION_IDENTITY) throw new ConfigError('sms inbound: SMS_ORIGINATION_IDENTITY is required with SMS_SELF_MANAGED_OPT_OUTS=true (the keyword answers go out from it)');
  return {
    idempotencyTable: parsed.IDEMPOTENCY_TABLE,
    inboundTopicArn: parsed.SMS_INBOUND_TOPIC_ARN,
    optOutListName: parsed.SMS_OPT_OUT_LIST ?? 'Default',
    ...(parsed.SMS_ENDPOINT ? { endpoint: parsed.SMS_ENDPOINT } : {}),
    ...(selfManaged
      ? {
          answers: {
            provider: smsProviderOf(parsed, parsed.SMS_ORIGINATION_IDENTITY!),
            texts: { help: parsed.SMS_ANSWER_HELP ?? SMS_KEYWORD_ANSWERS_DEFAULT.help, stop: parsed.SMS_ANSWER_STOP ?? SMS_KEYWORD_ANSWERS_DEFAULT.stop, start: parsed.SMS_ANSWER_START ?? SMS_KEYWORD_ANSWERS_DEFAULT.start },
          },
        }
      : {}),
  };
}

export function composeSmsInbound(parts: Parts, config: SmsInboundConfig) {
  const answers = config.answers;
  return createSmsInboundHandler({
    inboundTopicArn: config.inboundTopicArn,
    optOuts: smsOptOutList(parts, config.idempotencyTable),
    serviceOptOuts: new EndUserMessagingOptOutList(smsClient(parts, config.endpoint), config.optOutListName),
    ...(answers
      ? { answers: { provider: smsProvider(parts, answers.provider), guard: new DynamoSmsAnswerGuard(documentClient(parts), config.idempotencyTable), texts: answers.texts, perDay: answers.provider.limits.perDay } }
      : {}),
    clock: parts.clock,
    onEvent: (level, message, fields) => parts.logger[level](message, fields),
  });
}

export function smsInboundFunction(env: Env) {
  return composeSmsInbound(createParts({ logger: new Logger({ serviceName: 'sms-inbound' }) }), smsInboundConfigFromEnv(env));
}
