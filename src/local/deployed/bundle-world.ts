/**
 * What the deployed bundles are given in the local runtime: its resources, the SDK variables that
 * point them at the local stand-ins, and the variables put on top of each template environment,
 * taken from the same typed configs the source mode composes with (so both modes run with the same
 * settings): the endpoints the template cannot know and the local tunables.
 */
import { ENV } from '../../env.js';
import type { TableName } from '../../table-specs.js';
import type { LocalFunctionConfigs } from '../function-configs.js';
import { LOCAL_SCHEDULER_PATH } from '../scheduler/scheduler-api.js';
import { LOCAL_SMS_INBOUND_TOPIC_ARN } from '../sms/sms-voice-v2.js';
import type { LocalSqsCredentials } from '../sqs/credentials.js';
import type { LocalQueueRegistry } from '../sqs/index.js';
import type { LocalSettings } from '../settings.js';
import type { BundleWorld } from './bundled-functions.js';

export interface BundleWorldInputs {
  settings: LocalSettings;
  region: string;
  tables: Record<TableName, string>;
  registry: LocalQueueRegistry;
  secrets: BundleWorld['secrets'];
  credentials: LocalSqsCredentials;
  http: string;
  dynamoEndpoint: string;
  managementEndpoint: string;
  snsEndpoint: string;
  sesEndpoint: string;
  smsEndpoint: string;
  configs: LocalFunctionConfigs;
  functionTimeoutMs: number;
  maxReceiveCount: number;
}

export function localBundleWorld(inputs: BundleWorldInputs): BundleWorld {
  const { configs, http } = inputs;
  const someType = configs.fanOut('mention.created');
  const gate = configs.delivery('urgent').gate;
  // The local tunables every function may read (a function ignores the ones it does not parse).
  const tunables: Record<string, string | number | undefined> = {
    [ENV.FEED_SHARDS]: configs.inbox.feedShards,
    [ENV.CELEBRITY_THRESHOLD]: configs.promotion.celebrityThreshold,
    [ENV.INBOX_TTL_DAYS]: configs.inbox.inboxTtlDays,
    [ENV.PREFERENCES_CACHE_TTL_MS]: configs.inbox.cacheTtlMs,
    [ENV.RETRACTIONS_CACHE_TTL_MS]: configs.inbox.retractionsCacheTtlMs,
    [ENV.HANDSHAKE_GRACE_SECONDS]: configs.wsDisconnect.handshakeGraceSeconds,
    [ENV.SEND_AT_MIN_DELAY_MS]: someType.sendAt?.minDelayMs,
    [ENV.RATE_LIMIT_PER_MINUTE]: gate.rateLimitPerWindow,
    [ENV.RATE_LIMIT_WINDOW_MS]: gate.rateLimitWindowMs,
    [ENV.CHANNEL_RATE_LIMIT_PER_WINDOW]: configs.channel?.('push').rateLimitPerWindow,
    [ENV.SMS_DAILY_LIMIT_PER_USER]: configs.channel?.('sms').sms?.limits.perUserPerDay,
    [ENV.SMS_DAILY_LIMIT]: configs.channel?.('sms').sms?.limits.perDay,
    [ENV.MAX_RECEIVE_COUNT]: inputs.maxReceiveCount,
    POWERTOOLS_LOG_LEVEL: inputs.settings.logLevel ?? 'WARN',
  };
  // Endpoints replace the template's AWS ones, for the functions that have them.
  const endpoints: Record<string, string> = {
    [ENV.WS_MANAGEMENT_ENDPOINT]: inputs.managementEndpoint,
    [ENV.JWKS_URL]: `${http}/.well-known/jwks.json`,
    [ENV.UNSUBSCRIBE_BASE_URL]: http,
  };
  return {
    region: inputs.region,
    tables: inputs.tables,
    queue: (name) => {
      const queue = inputs.registry.all().find((candidate) => candidate.name === name);
      return queue ? { url: queue.url, arn: queue.arn } : undefined;
    },
    secrets: inputs.secrets,
    sdkEnv: {
      AWS_REGION: inputs.region,
      AWS_ACCESS_KEY_ID: inputs.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: inputs.credentials.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: inputs.dynamoEndpoint,
      AWS_ENDPOINT_URL_SQS: http,
      AWS_ENDPOINT_URL_SCHEDULER: `${http}${LOCAL_SCHEDULER_PATH}`,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    overrides: (template) => ({
      ...Object.fromEntries(Object.entries(tunables).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]]))),
      ...Object.fromEntries(Object.entries(endpoints).filter(([name]) => name in template)),
      // The local SNS and SES stand-ins (variables of the local runtime only), for the functions of those channels.
      ...(ENV.SNS_PLATFORM_APPLICATION_APNS in template ? { [ENV.SNS_ENDPOINT]: inputs.snsEndpoint } : {}),
      ...(ENV.SES_FROM_ADDRESS in template ? { [ENV.SES_ENDPOINT]: inputs.sesEndpoint } : {}),
      ...(ENV.SMS_ORIGINATION_IDENTITY in template ? { [ENV.SMS_ENDPOINT]: inputs.smsEndpoint } : {}),
      // The inbound texts' topic: the stand-in publishes them under this ARN, and the function checks it.
      ...(ENV.SMS_INBOUND_TOPIC_ARN in template ? { [ENV.SMS_INBOUND_TOPIC_ARN]: LOCAL_SMS_INBOUND_TOPIC_ARN } : {}),
    }),
    functionTimeoutMs: inputs.functionTimeoutMs,
  };
}
