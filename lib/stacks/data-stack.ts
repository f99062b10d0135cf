import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { NotificationsConfig } from '../config.js';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { createDataKey } from '../constructs/data-protection.js';
import { InboxTables } from '../constructs/inbox-tables.js';
import { TenantUserPool } from '../constructs/tenant-user-pool.js';
import { acknowledge } from '../nag.js';
import { AuditArchive, createPseudonymKey } from '../constructs/audit-archive.js';
import { AuditStream, type AuditDestination } from '../constructs/audit-stream.js';
import { Duration } from 'aws-cdk-lib';

export interface DataStackProps extends StackProps {
  config: NotificationsConfig;
}

/** What the stateful part creates. */
export interface StatefulParts {
  tables: InboxTables;
  cursorSecret: Secret;
  userPool?: TenantUserPool;
  /** The customer-managed key of the tables and queues (given, or created for `customerManagedKey`). */
  encryptionKey?: IKey;
  /** The audit trail's stateful parts (when configured): where it archives, and the pseudonyms' HMAC key. */
  audit?: StatefulAudit;
}

export interface StatefulAudit {
  destination: AuditDestination;
  /** The Firehose stream into the archive (beside it, so the archive's ARN is never a cross-stack import). */
  stream: AuditStream;
  pseudonymKey: IKey;
  /** This account's archive (absent when delivering to another account's bucket). */
  archive?: AuditArchive;
}

/** Audit trail hook: the archive (this account, or another's by ARN) and the HMAC key, when configured. */
function buildStatefulAudit(scope: Construct, config: NotificationsConfig): StatefulAudit | undefined {
  if (config.auditRetentionDays === undefined && config.auditDestination === undefined) return undefined;
  const pseudonymKey = createPseudonymKey(scope);
  new CfnOutput(scope, 'AuditPseudonymKeyArn', { value: pseudonymKey.keyArn, description: 'KMS HMAC key of the audit pseudonyms (npm run audit -- why --key-arn)' });
  const archive = config.auditDestination ? undefined : new AuditArchive(scope, 'AuditArchive', { retentionDays: config.auditRetentionDays! });
  if (archive) new CfnOutput(scope, 'AuditArchiveBucket', { value: archive.bucket.bucketName, description: 'Audit archive (Object Lock, compliance mode): npm run audit -- verify --bucket' });
  const destination = config.auditDestination ?? { bucketArn: archive!.bucket.bucketArn, keyArn: archive!.key.keyArn };
  const stream = new AuditStream(scope, 'AuditStream', {
    destination,
    ...(config.auditBufferSeconds !== undefined ? { bufferInterval: Duration.seconds(config.auditBufferSeconds) } : {}),
    logRetention: config.logRetentionDays,
    removalPolicy: config.removalPolicy,
    ...(config.alarmTopicArn ? { alarmTopicArn: config.alarmTopicArn } : {}),
  });
  new CfnOutput(scope, 'AuditStreamName', { value: stream.deliveryStream.ref, description: 'Firehose stream of the audit trail (npm run erase -- --audit-stream)' });
  if (config.auditDestination) new CfnOutput(scope, 'AuditFirehoseRoleArn', { value: stream.firehoseRole.roleArn, description: 'Give this role write access in the logging account (AuditArchive writerRoleArns)' });
  return { destination, stream, pseudonymKey, ...(archive ? { archive } : {}) };
}

/** Builds the stateful part into `scope` (a stack, or a construct in a host app's stack). */
export function buildStateful(scope: Construct, config: NotificationsConfig, options: { encryptionKey?: IKey } = {}): StatefulParts {
  const encryptionKey = options.encryptionKey ?? (config.customerManagedKey ? createDataKey(scope, config.removalPolicy) : undefined);
  const tables = new InboxTables(scope, 'Tables', { removalPolicy: config.removalPolicy, ...(encryptionKey ? { encryptionKey } : {}) });
  const audit = buildStatefulAudit(scope, config);
  const withKey = { ...(encryptionKey ? { encryptionKey } : {}), ...(audit ? { audit } : {}) };

  // HMAC key of the pagination cursors, generated at deploy time: never in source or template.
  const cursorSecret = new Secret(scope, 'CursorSecret', {
    description: 'HMAC key that signs inbox pagination cursors',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: config.removalPolicy,
  });
  acknowledge(
    cursorSecret,
    'AwsSolutions-SMG4',
    'Rotating the cursor HMAC key only invalidates outstanding page cursors; it is rotated by updating the secret and redeploying (README), no rotation Lambda needed.',
  );

  if (config.authMode !== 'cognito') return { tables, cursorSecret, ...withKey };
  const userPool = new TenantUserPool(scope, 'Identity', { removalPolicy: config.removalPolicy });
  new CfnOutput(scope, 'UserPoolId', { value: userPool.userPool.userPoolId, description: 'Cognito user pool (users carry custom:tenant)' });
  new CfnOutput(scope, 'UserPoolClientId', { value: userPool.client.userPoolClientId, description: 'App client id (the ID token audience)' });
  return { tables, cursorSecret, userPool, ...withKey };
}

/**
 * The stateful stack: tables, the cursor-signing key and (in `cognito` mode) the user pool. Kept
 * apart from the stateless stack so the app can be torn down and redeployed without touching data.
 */
export class DataStack extends Stack {
  readonly tables: InboxTables;
  readonly cursorSecret: Secret;
  readonly userPool?: TenantUserPool;
  readonly encryptionKey?: IKey;
  readonly audit?: StatefulAudit;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const parts = buildStateful(this, props.config);
    this.tables = parts.tables;
    this.cursorSecret = parts.cursorSecret;
    if (parts.userPool) this.userPool = parts.userPool;
    if (parts.encryptionKey) this.encryptionKey = parts.encryptionKey;
    if (parts.audit) this.audit = parts.audit;
  }
}
