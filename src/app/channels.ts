/**
 * Composition of the channel consumers (push: SNS mobile push; email: SES v2) and of the devices /
 * consent / email-address / unsubscribe routes served by the preferences function.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { ChannelRepository } from '../adapters/dynamo/channel-repository.js';
import { ChannelSendLedger } from '../adapters/dynamo/channel-send-ledger.js';
import { SesEmailProvider } from '../adapters/ses/ses-email-provider.js';
import { SnsPushProvider } from '../adapters/sns/sns-push-provider.js';
import { ChannelDelivery, type ChannelTypeInfo } from '../core/channels/channel-delivery.js';
import { signedDeliveryJobBody } from '../core/delivery-job-signature.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { createChannelHandler } from '../handlers/channel-handler.js';
import { findNotificationType } from '../notifications/deployed.js';
import { channelConsumerConfigFromEnv, observabilityConfigFromEnv, type ChannelConsumerConfig, type EmailProviderConfig, type Env, type ObservabilityConfig, type PushProviderConfig } from './config.js';
import { eventBridgeScheduler } from './parts-queues.js';
import { observability } from './parts-observability.js';
import { withAuditBarrier } from './audit/audit-trail.js';
import { installAuditTrailFromEnv } from './audit/aws.js';
import { clientOptions, createParts, documentClient, preferencesCache, type Parts } from './parts.js';

export function channelRepository(parts: Parts, graphTable: string): ChannelRepository {
  return parts.once('channel-repository', () => new ChannelRepository(documentClient(parts), graphTable));
}

/** A local stand-in endpoint (SNS, SES) checks the same per-DATA_DIR signing credentials as the local SQS endpoint. */
function localEndpointOptions(parts: Parts, endpoint: string | undefined) {
  return endpoint ? { endpoint, ...(parts.aws.sqsCredentials ? { credentials: parts.aws.sqsCredentials } : {}) } : {};
}

export function snsPushProvider(parts: Parts, config: PushProviderConfig): SnsPushProvider {
  return parts.once('sns-push-provider', () => new SnsPushProvider(new SNSClient({ ...clientOptions(parts), ...localEndpointOptions(parts, config.endpoint) }), config.platformApplications));
}

function sesEmailProvider(parts: Parts, config: EmailProviderConfig): SesEmailProvider {
  return parts.once('ses-email-provider', () =>
    new SesEmailProvider(new SESv2Client({ ...clientOptions(parts), ...localEndpointOptions(parts, config.endpoint) }), {
      fromAddress: config.fromAddress,
      ...(config.identityArn ? { fromArn: config.identityArn } : {}),
      ...(config.configurationSetName ? { configurationSetName: config.configurationSetName } : {}),
    }),
  );
}

/** What the channels read of a catalog type. */
export function channelTypeInfo(type: string): ChannelTypeInfo | undefined {
  const found = findNotificationType(type);
  if (!found) return undefined;
  return {
    digestible: found.digestible,
    ...(found.channels ? { channels: found.channels } : {}),
    ...(found.sensitive !== undefined ? { sensitive: found.sensitive } : {}),
    ...(found.urgentBypassesQuietHours !== undefined ? { urgentBypassesQuietHours: found.urgentBypassesQuietHours } : {}),
  };
}

export function channelDelivery(parts: Parts, config: ChannelConsumerConfig, scheduler: Scheduler): ChannelDelivery {
  const ledger = parts.once('channel-send-ledger', () => new ChannelSendLedger(documentClient(parts), config.idempotencyTable, parts.clock));
  return new ChannelDelivery({
    channel: config.channel,
    preferences: preferencesCache(parts, config),
    state: channelRepository(parts, config.graphTable),
    dedup: ledger,
    rate: ledger,
    ...(config.push ? { push: snsPushProvider(parts, config.push) } : {}),
    ...(config.email ? { email: Object.assign(sesEmailProvider(parts, config.email), { unsubscribeBaseUrl: config.email.unsubscribeBaseUrl, unsubscribeSecret: config.email.unsubscribeSecret }) } : {}),
    scheduler,
    channelQueueArn: config.channelQueueArn,
    signJob: (job) => signedDeliveryJobBody(job, config.deliveryJobSecret),
    typeInfo: channelTypeInfo,
    clock: parts.clock,
    settings: { rateLimitPerWindow: config.rateLimitPerWindow, rateLimitWindowMs: config.rateLimitWindowMs, parallelism: config.parallelism },
    onEvent: (level, message, context) => (level === 'warn' ? parts.logger.warn(message, context) : parts.logger.debug(message, context)),
    trace: observability(parts, config.idempotencyTable).trace,
  });
}

export function composeChannelConsumer(parts: Parts, config: ChannelConsumerConfig, scheduler: Scheduler, observabilityConfig: Partial<ObservabilityConfig> = {}) {
  return withAuditBarrier(parts, createChannelHandler({
    delivery: channelDelivery(parts, config, scheduler),
    channel: config.channel,
    deliveryJobSecret: config.deliveryJobSecret,
    logger: parts.logger,
    ...(observabilityConfig.maxReceiveCount !== undefined ? { maxReceiveCount: observabilityConfig.maxReceiveCount } : {}),
  }));
}

export function channelFunction(env: Env) {
  const config = channelConsumerConfigFromEnv(env);
  const parts = createParts({ logger: new Logger({ serviceName: `channel-${config.channel}` }) });
  installAuditTrailFromEnv(parts, env, config.idempotencyTable);
  return composeChannelConsumer(parts, config, eventBridgeScheduler(parts, config.scheduler), observabilityConfigFromEnv(env));
}
