/**
 * Deployment settings, read from CDK context (`cdk.json` or `-c key=value`). Every setting has a
 * default here; a bad value fails the synth with the setting's name, never the deploy.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { DEFAULT_FEED_SHARDS } from '../src/core/model/feed-shards.js';
import { INBOX_TTL_DAYS_DEFAULT } from '../src/core/model/notification.js';
import { DEFAULT_TENANT_CLAIM } from '../src/adapters/jwt-verifier.js';

export type AuthMode = 'cognito' | 'jwt';

export interface JwtSettings {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

export interface NotificationsConfig {
  /** Prefix of the stack names: `<prefix>Data` and `<prefix>App`. */
  stackPrefix: string;
  /** Name of the EventBridge bus producers publish to. */
  eventBusName: string;
  /** Followers at or above which an actor's events go to its sharded feed instead of every inbox. */
  celebrityThreshold: number;
  /** Partitions of a celebrity feed. */
  feedShards: number;
  /** SQS batching window of the info delivery queue (digest collapse window), 0..300 s. */
  infoBatchWindowSeconds: number;
  /**
   * Concurrent invocations of EACH delivery consumer (urgent, info): the SQS event source's
   * `maxConcurrency`, 2..1000. Pushes/s <= 2 x this x 16 in flight / push latency; keep it under
   * API Gateway's 10,000 requests/s per account and region (docs/design-notes.md, "Live delivery at scale").
   */
  deliveryMaxConcurrency: number;
  /** Days an inbox item lives (TTL). */
  ttlDays: number;
  /** Seconds a live-delivery dedup record lives (`DELIVERY_RECORD_TTL_SECONDS`); unset = the function default. */
  dedupTtlSeconds?: number;
  /** Days a delivery-trace record lives (`TRACE_TTL_DAYS`); unset = the function default (7). */
  traceTtlDays?: number;
  /** Days the bus archive keeps raw events for replay (default 30); an erasure tombstone must outlive it. */
  archiveRetentionDays: number;
  /** Encrypt tables and queues with a KMS key the stack creates (or the construct's `encryptionKey`); default AWS-managed keys. */
  customerManagedKey: boolean;
  /** What happens to tables, the user pool, the cursor secret and log groups on stack deletion. */
  removalPolicy: RemovalPolicy;
  /** Receives before a message moves to its DLQ (AWS advises >= 5 for Lambda consumers). */
  maxReceiveCount: number;
  authMode: AuthMode;
  /** Required in `jwt` mode. */
  jwt?: JwtSettings;
  /** Claim carrying the tenant id (`custom:tenant` for Cognito): a name, or a dotted path into nested claims (`org.id`). */
  tenantClaim: string;
  /** Single-tenant apps (`jwt` mode): every token's tenant, whatever its claims. */
  fixedTenant?: string;
  logRetentionDays: RetentionDays;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Optional SNS topic ARN every alarm notifies. */
  alarmTopicArn?: string;
  /**
   * The WebSocket API and its delivery consumers. `false` for targets without API Gateway v2
   * (LocalStack's free plan): delivery jobs then stay on their queues.
   */
  liveDelivery: boolean;
  /**
   * Origins a browser app may call the REST API from: `*` (default; tokens travel in a header, not
   * cookies) or exact origins, comma-separated in context (`-c notifications:corsAllowOrigins=https://app.example.com`).
   */
  corsAllowOrigins: string[];
  /**
   * The audit trail (lib/constructs/audit-trail.ts), off unless set: days each archived object stays
   * locked in COMPLIANCE mode (nobody, root included, can delete or shorten it before then).
   */
  auditRetentionDays?: number;
  /** Deliver the audit archive to a bucket in another account instead (its bucket and KMS key ARNs; its retention is that bucket's). */
  auditDestination?: { bucketArn: string; keyArn: string };
  /** Firehose buffering interval of the audit archive, 60..900 s (default 300: bigger objects, fewer PUTs). */
  auditBufferSeconds?: number;
}

export const DEFAULTS = {
  stackPrefix: 'Notifications',
  eventBusName: 'notifications',
  celebrityThreshold: 10_000,
  feedShards: DEFAULT_FEED_SHARDS,
  infoBatchWindowSeconds: 30,
  deliveryMaxConcurrency: 5,
  ttlDays: INBOX_TTL_DAYS_DEFAULT,
  archiveRetentionDays: 30,
  customerManagedKey: false,
  removalPolicy: 'retain',
  maxReceiveCount: 5,
  authMode: 'cognito',
  tenantClaim: DEFAULT_TENANT_CLAIM,
  logRetentionDays: 30,
  logLevel: 'INFO',
  liveDelivery: true,
  corsAllowOrigins: '*',
} as const;

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

type ContextReader = Pick<Node, 'tryGetContext'>;

/**
 * Every setting is read as `notifications:<key>` (`-c notifications:logLevel=DEBUG`), so a host app's
 * own context (`logLevel: 'verbose'`) never collides with ours.
 */
export const CONTEXT_NAMESPACE = 'notifications:';

function text(node: ContextReader, key: string): string | undefined {
  const value: unknown = node.tryGetContext(`${CONTEXT_NAMESPACE}${key}`);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new ConfigurationError(`context ${key} must be a string or number, got ${JSON.stringify(value)}`);
  }
  return String(value);
}

function integer(node: ContextReader, key: string, fallback: number, min: number, max: number): number {
  const raw = text(node, key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError(`context ${key} must be an integer in ${min}..${max}, got ${raw}`);
  }
  return value;
}

/** `{ [key]: value }` when the context sets it, `{}` otherwise (the function's own default applies). */
function optionalInteger<K extends string>(node: ContextReader, key: K, min: number, max: number): Partial<Record<K, number>> {
  if (text(node, key) === undefined) return {};
  return { [key]: integer(node, key, min, min, max) } as Partial<Record<K, number>>;
}

function oneOf<T extends string>(node: ContextReader, key: string, fallback: T, allowed: readonly T[]): T {
  const raw = text(node, key);
  if (raw === undefined) return fallback;
  const value = allowed.find((candidate) => candidate.toLowerCase() === raw.toLowerCase());
  if (value === undefined) throw new ConfigurationError(`context ${key} must be one of ${allowed.join(', ')}, got ${raw}`);
  return value;
}

function retention(node: ContextReader, key: string, fallback: number): RetentionDays {
  const days = integer(node, key, fallback, 1, 3653);
  const allowed = Object.values(RetentionDays).filter((value): value is number => typeof value === 'number' && value !== RetentionDays.INFINITE);
  if (!allowed.includes(days)) throw new ConfigurationError(`context ${key} must be one of ${allowed.join(', ')}, got ${days}`);
  return days as RetentionDays;
}

function origins(node: ContextReader, key: string, fallback: string): string[] {
  const list = (text(node, key) ?? fallback).split(',').map((origin) => origin.trim()).filter(Boolean);
  const bad = list.find((origin) => origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin));
  if (bad !== undefined || list.length === 0) throw new ConfigurationError(`context ${key} must be * or comma-separated origins (scheme://host[:port]), got ${bad ?? '(empty)'}`);
  return list;
}

function required(node: ContextReader, key: string, why: string): string {
  const value = text(node, key);
  if (value === undefined) throw new ConfigurationError(`context ${key} is required ${why}`);
  return value;
}

/** Reads every setting, applying the defaults above. */
export function configFromContext(node: ContextReader): NotificationsConfig {
  const authMode = oneOf<AuthMode>(node, 'authMode', DEFAULTS.authMode, ['cognito', 'jwt']);
  const removal = oneOf(node, 'removalPolicy', DEFAULTS.removalPolicy, ['retain', 'destroy'] as const);
  const jwt: JwtSettings | undefined =
    authMode === 'jwt'
      ? {
          issuer: required(node, 'jwtIssuer', 'when authMode is jwt'),
          audience: required(node, 'jwtAudience', 'when authMode is jwt'),
          jwksUrl: required(node, 'jwksUrl', 'when authMode is jwt'),
        }
      : undefined;
  if (jwt && !/^https?:\/\//.test(jwt.jwksUrl)) throw new ConfigurationError(`context jwksUrl must be an http(s) URL, got ${jwt.jwksUrl}`);
  const stackPrefix = text(node, 'stackPrefix') ?? DEFAULTS.stackPrefix;
  if (!/^[A-Za-z][A-Za-z0-9-]{0,60}$/.test(stackPrefix)) throw new ConfigurationError(`context stackPrefix must match [A-Za-z][A-Za-z0-9-]*, got ${stackPrefix}`);
  const eventBusName = text(node, 'eventBusName') ?? DEFAULTS.eventBusName;
  if (!/^[A-Za-z0-9._-]{1,256}$/.test(eventBusName)) throw new ConfigurationError(`context eventBusName must match [A-Za-z0-9._-]{1,256}, got ${eventBusName}`);
  const fixedTenant = text(node, 'fixedTenant');
  // The Cognito REST authorizer reads the tenant from claims; only the JWT authorizer applies a fixed one.
  if (fixedTenant !== undefined && authMode !== 'jwt') throw new ConfigurationError('context fixedTenant needs authMode jwt');
  const alarmTopicArn = text(node, 'alarmTopicArn');
  const audit = auditSettings(node);
  if (alarmTopicArn !== undefined && !alarmTopicArn.startsWith('arn:')) throw new ConfigurationError(`context alarmTopicArn must be an SNS topic ARN, got ${alarmTopicArn}`);
  return {
    stackPrefix,
    eventBusName,
    celebrityThreshold: integer(node, 'celebrityThreshold', DEFAULTS.celebrityThreshold, 1, 100_000_000),
    feedShards: integer(node, 'feedShards', DEFAULTS.feedShards, 1, 64),
    infoBatchWindowSeconds: integer(node, 'infoBatchWindowSeconds', DEFAULTS.infoBatchWindowSeconds, 0, 300),
    deliveryMaxConcurrency: integer(node, 'deliveryMaxConcurrency', DEFAULTS.deliveryMaxConcurrency, 2, 1000),
    ttlDays: integer(node, 'ttlDays', DEFAULTS.ttlDays, 1, 3650),
    ...optionalInteger(node, 'dedupTtlSeconds', 60, 400 * 86_400),
    ...optionalInteger(node, 'traceTtlDays', 1, 3650),
    archiveRetentionDays: integer(node, 'archiveRetentionDays', DEFAULTS.archiveRetentionDays, 1, 3650),
    customerManagedKey: oneOf(node, 'customerManagedKey', String(DEFAULTS.customerManagedKey) as 'true' | 'false', ['true', 'false'] as const) === 'true',
    removalPolicy: removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    maxReceiveCount: integer(node, 'maxReceiveCount', DEFAULTS.maxReceiveCount, 1, 1000),
    authMode,
    jwt,
    tenantClaim: text(node, 'tenantClaim') ?? DEFAULTS.tenantClaim,
    ...(fixedTenant !== undefined ? { fixedTenant } : {}),
    logRetentionDays: retention(node, 'logRetentionDays', DEFAULTS.logRetentionDays),
    logLevel: oneOf(node, 'logLevel', DEFAULTS.logLevel, ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const),
    alarmTopicArn,
    liveDelivery: oneOf(node, 'liveDelivery', 'true', ['true', 'false'] as const) === 'true',
    corsAllowOrigins: origins(node, 'corsAllowOrigins', DEFAULTS.corsAllowOrigins),
    ...audit,
  };
}

/** The audit trail's settings: a retention (an archive bucket of this app) or a destination in another account, not both. */
function auditSettings(node: ContextReader): Pick<NotificationsConfig, 'auditRetentionDays' | 'auditDestination' | 'auditBufferSeconds'> {
  const retention = optionalInteger(node, 'auditRetentionDays', 1, 36_500);
  const bucketArn = text(node, 'auditDestinationBucketArn');
  const keyArn = text(node, 'auditDestinationKeyArn');
  if ((bucketArn === undefined) !== (keyArn === undefined)) throw new ConfigurationError('context auditDestinationBucketArn and auditDestinationKeyArn go together');
  if (bucketArn !== undefined && !/^arn:aws[a-z-]*:s3:::[a-z0-9.-]{3,63}$/.test(bucketArn)) throw new ConfigurationError(`context auditDestinationBucketArn must be an S3 bucket ARN, got ${bucketArn}`);
  if (keyArn !== undefined && !/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/.test(keyArn)) throw new ConfigurationError(`context auditDestinationKeyArn must be a KMS key ARN, got ${keyArn}`);
  if (bucketArn !== undefined && retention.auditRetentionDays !== undefined) {
    throw new ConfigurationError('context auditRetentionDays applies to the archive bucket this app creates; with auditDestinationBucketArn the retention is the destination bucket\'s');
  }
  const on = retention.auditRetentionDays !== undefined || bucketArn !== undefined;
  return {
    ...retention,
    ...(bucketArn !== undefined && keyArn !== undefined ? { auditDestination: { bucketArn, keyArn } } : {}),
    ...(on ? optionalInteger(node, 'auditBufferSeconds', 60, 900) : {}),
  };
}
