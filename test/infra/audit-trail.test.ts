/**
 * The audit trail on AWS (off by default): an Object Lock bucket in COMPLIANCE mode with the
 * configured retention, KMS encryption, a bucket policy denying every principal the deletes and
 * lock changes; NO role of the app may delete or overwrite (every IAM policy of every stack is read);
 * the Firehose role gets exactly the S3-destination set; only the recording functions get the stream,
 * key and backlog; the cross-account option synthesizes (app side and the logging account's bucket);
 * cdk-nag stays clean.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditArchive, NotificationInbox } from '../../lib/index.js';
import { ARCHIVE_DENIED_ACTIONS, ARCHIVE_WRITE_ACTIONS } from '../../lib/constructs/audit-archive.js';
import type { HandlerFunction } from '../../lib/constructs/handler-function.js';
import { grantsOf, logicalId, synthesize, type CfnTemplate, type Statement, type Synthesized } from './synth.js';

const LOGGING_BUCKET = 'arn:aws:s3:::acme-audit-archive';
const LOGGING_KEY = 'arn:aws:kms:eu-west-1:444455556666:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** Actions that delete or overwrite archived data, or weaken its lock: no Allow may cover one. */
const DESTRUCTIVE = ['s3:DeleteObject', 's3:DeleteObjectVersion', 's3:DeleteBucket', 's3:PutObjectRetention', 's3:BypassGovernanceRetention', 's3:PutBucketObjectLockConfiguration', 's3:PutLifecycleConfiguration', 's3:PutBucketPolicy', 's3:DeleteBucketPolicy', 's3:PutBucketVersioning'];

/** Whether an IAM action pattern (`s3:Delete*`, `s3:*`, `*`) covers `action`. */
function covers(pattern: string, action: string): boolean {
  const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
  return regex.test(action);
}

function allowStatements(...templates: CfnTemplate[]): Array<{ policy: string; statement: Statement }> {
  return templates.flatMap((template) =>
    Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::IAM::Policy' || resource.Type === 'AWS::IAM::ManagedPolicy')
      .flatMap(([id, resource]) => (resource.Properties!.PolicyDocument.Statement as Statement[]).filter((statement) => statement.Effect === 'Allow').map((statement) => ({ policy: id, statement }))),
  );
}

const actionsOf = (statement: Statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

function recordersOf(synth: Synthesized): HandlerFunction[] {
  const { pipeline, live } = synth.built.app;
  return [...pipeline.types.map((type) => type.fanOut), ...(live ? [live.urgentDelivery, live.infoDelivery] : [])];
}

describe('When the audit trail is on (auditRetentionDays = 400)', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize({ auditRetentionDays: '400' }, { bundle: false });
  }, 120_000);

  it('archives to a versioned bucket with Object Lock in COMPLIANCE mode for 400 days, KMS-encrypted (bucket key), private, TLS only, retained', () => {
    const buckets = Object.values(synth.dataJson.Resources).filter((resource) => resource.Type === 'AWS::S3::Bucket');
    expect(buckets).toHaveLength(1);
    const [bucket] = buckets;
    expect(bucket!.Properties).toMatchObject({
      ObjectLockEnabled: true,
      ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 400 } } },
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [logicalId(synth.built.data.audit!.archive!.key), 'Arn'] } } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
    expect(bucket!.DeletionPolicy).toBe('Retain');
    const keys = Object.values(synth.dataJson.Resources).filter((resource) => resource.Type === 'AWS::KMS::Key');
    expect(keys.map((key) => [key.Properties!.KeySpec ?? 'SYMMETRIC_DEFAULT', key.Properties!.KeyUsage ?? 'ENCRYPT_DECRYPT', key.Properties!.EnableKeyRotation ?? false, key.DeletionPolicy]).sort()).toEqual([
      ['HMAC_256', 'GENERATE_VERIFY_MAC', false, 'Retain'],
      ['SYMMETRIC_DEFAULT', 'ENCRYPT_DECRYPT', true, 'Retain'],
    ]);
  });

  it('denies every principal the deletes (delete markers too) and the lock changes in the bucket policy', () => {
    const policy = Object.values(synth.dataJson.Resources).find((resource) => resource.Type === 'AWS::S3::BucketPolicy')!;
    const deny = (policy.Properties!.PolicyDocument.Statement as Statement[]).find((statement) => statement.Effect === 'Deny' && actionsOf(statement).includes('s3:DeleteObject'))!;
    expect(deny).toMatchObject({ Principal: { AWS: '*' } });
    expect([...actionsOf(deny)].sort()).toEqual([...ARCHIVE_DENIED_ACTIONS].sort());
  });

  it('allows NO role of the app to delete or overwrite archived objects or weaken the lock (every IAM policy of both stacks)', () => {
    // The privacy job's grants on its own export bucket (exports/ only) are not the archive's.
    const exportBucket = logicalId(synth.built.app.privacyJobs.bucket);
    const statements = allowStatements(synth.appJson, synth.dataJson).filter(({ statement }) => !JSON.stringify(statement.Resource).includes(`"${exportBucket}"`));
    const offending = statements.flatMap(({ policy, statement }) =>
      actionsOf(statement)
        .filter((pattern) => DESTRUCTIVE.some((action) => covers(pattern, action)))
        .map((pattern) => `${policy}: ${pattern}`),
    );
    expect(offending).toEqual([]);
    // And only the Firehose role may put objects in the archive; no Lambda role has any s3 action on it.
    const s3Writers = statements.filter(({ statement }) => actionsOf(statement).some((pattern) => covers(pattern, 's3:PutObject')));
    expect(s3Writers.map(({ policy }) => policy)).toEqual([logicalId(synth.built.data.audit!.stream.firehoseRole.node.findChild('DefaultPolicy'))]);
    expect([...actionsOf(s3Writers[0]!.statement)].sort()).toEqual([...ARCHIVE_WRITE_ACTIONS].sort());
  });

  it('delivers through Firehose (Direct PUT, GZIP, SSE) to that bucket with the archive key, assumable by firehose.amazonaws.com for this account only', () => {
    const { stream, archive } = synth.built.data.audit!;
    const resource = synth.dataJson.Resources[logicalId(stream.deliveryStream)]!;
    expect(resource.Properties).toMatchObject({
      DeliveryStreamType: 'DirectPut',
      DeliveryStreamEncryptionConfigurationInput: { KeyType: 'AWS_OWNED_CMK' },
      ExtendedS3DestinationConfiguration: {
        BucketARN: { 'Fn::GetAtt': [logicalId(archive!.bucket), 'Arn'] },
        CompressionFormat: 'GZIP',
        EncryptionConfiguration: { KMSEncryptionConfig: { AWSKMSKeyARN: { 'Fn::GetAtt': [logicalId(archive!.key), 'Arn'] } } },
        BufferingHints: { IntervalInSeconds: 300, SizeInMBs: 64 },
      },
    });
    const trust = synth.dataJson.Resources[logicalId(stream.firehoseRole)]!.Properties!.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'firehose.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } }]);
  });

  it('gives the stream, the HMAC key and the backlog to the functions that record decisions (and the drainer), to no other', () => {
    const { audit } = synth.built.app;
    expect(audit).toBeDefined();
    const recorders = new Set([...recordersOf(synth), audit!.drainer].map((fn) => logicalId(fn)));
    const functions = Object.entries(synth.appJson.Resources).filter(([, resource]) => resource.Type === 'AWS::Lambda::Function' && resource.Properties!.Environment);
    for (const [id, resource] of functions) {
      const variables = Object.keys(resource.Properties!.Environment.Variables as object);
      expect(variables.includes('AUDIT_STREAM_NAME'), id).toBe(recorders.has(id));
    }
    for (const fn of [...recordersOf(synth), audit!.drainer]) {
      const grants = grantsOf(synth.appJson, fn);
      expect(grants.get('firehose:PutRecordBatch'), fn.node.id).toHaveLength(1);
      expect(grants.get('kms:GenerateMac'), fn.node.id).toHaveLength(1);
      expect([...grants.keys()].filter((action) => action.startsWith('kms:') && action !== 'kms:GenerateMac')).toEqual([]);
    }
  });

  it('alarms on a gap: records buffered, records only logged, the backlog (age, DLQ), the drainer, stale Firehose deliveries', () => {
    const alarms = [...Object.values(synth.appJson.Resources), ...Object.values(synth.dataJson.Resources)].filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm');
    const metrics = alarms.map((alarm) => alarm.Properties!.MetricName).filter(Boolean);
    expect(metrics).toEqual(expect.arrayContaining(['AuditRecordsBuffered', 'AuditRecordsUnbuffered', 'DeliveryToS3.DataFreshness']));
    const descriptions = alarms.map((alarm) => String(alarm.Properties!.AlarmDescription));
    expect(descriptions.some((text) => text.includes('audit records the archive could not take yet'))).toBe(true);
  });

  it('is cdk-nag clean', () => {
    expect(synth.nagViolations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`)).toEqual([]);
  });
});

describe('When the audit trail delivers to a bucket in another account', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize({ auditDestinationBucketArn: LOGGING_BUCKET, auditDestinationKeyArn: LOGGING_KEY }, { bundle: false });
  }, 120_000);

  it('creates no bucket here; Firehose writes to the given bucket with the given key, and only there', () => {
    expect(Object.values(synth.dataJson.Resources).filter((resource) => resource.Type === 'AWS::S3::Bucket')).toEqual([]);
    const { stream } = synth.built.data.audit!;
    expect(synth.dataJson.Resources[logicalId(stream.deliveryStream)]!.Properties!.ExtendedS3DestinationConfiguration).toMatchObject({ BucketARN: LOGGING_BUCKET, EncryptionConfiguration: { KMSEncryptionConfig: { AWSKMSKeyARN: LOGGING_KEY } } });
    const statements = (synth.dataJson.Resources[logicalId(stream.firehoseRole.node.findChild('DefaultPolicy'))]!.Properties!.PolicyDocument.Statement as Statement[]).filter((statement) => actionsOf(statement).some((action) => action.startsWith('s3:') || action.startsWith('kms:')));
    expect(statements.map((statement) => statement.Resource)).toEqual([[LOGGING_BUCKET, `${LOGGING_BUCKET}/*`], LOGGING_KEY]);
    expect(Object.keys(synth.dataJson.Outputs ?? {})).toContain('AuditFirehoseRoleArn');
  });

  it('is cdk-nag clean', () => {
    expect(synth.nagViolations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`)).toEqual([]);
  });

  it('the logging account\'s archive synthesizes: the app\'s Firehose role may write and encrypt, nothing else; still nobody may delete', () => {
    const app = new App();
    const logging = new Stack(app, 'LoggingAccount', { env: { account: '444455556666', region: 'eu-west-1' } });
    const writer = 'arn:aws:iam::111122223333:role/NotificationsData-AuditStreamFirehoseRole';
    new AuditArchive(logging, 'Archive', { retentionDays: 2_555, writerRoleArns: [writer] });
    const template = Template.fromStack(logging).toJSON() as CfnTemplate;
    const bucketPolicy = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::S3::BucketPolicy')!.Properties!.PolicyDocument.Statement as Statement[];
    const allow = bucketPolicy.find((statement) => statement.Effect === 'Allow')!;
    expect(allow).toMatchObject({ Principal: { AWS: writer } });
    expect([...actionsOf(allow)].sort()).toEqual([...ARCHIVE_WRITE_ACTIONS].sort());
    expect(bucketPolicy.some((statement) => statement.Effect === 'Deny' && actionsOf(statement).includes('s3:DeleteObjectVersion'))).toBe(true);
    const keyPolicy = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::KMS::Key')!.Properties!.KeyPolicy.Statement as Statement[];
    expect(keyPolicy.find((statement) => JSON.stringify((statement as Statement & { Principal?: unknown }).Principal ?? '').includes(writer))).toMatchObject({ Action: ['kms:GenerateDataKey', 'kms:Decrypt'] });
    expect(new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(logging).violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});

describe('When the audit trail is off (the default)', () => {
  it('builds no stream, archive, key or backlog, and no function gets AUDIT_ variables', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
    const inbox = new NotificationInbox(stack, 'Notifications', { auth: { mode: 'jwt', issuer: 'https://id.example.com/', audience: 'host', jwksUrl: 'https://id.example.com/jwks.json' } });
    const json = Template.fromStack(stack).toJSON() as CfnTemplate;
    expect(inbox.audit).toBeUndefined();
    // The one bucket is the privacy job's export bucket.
    expect(Object.entries(json.Resources).filter(([id, resource]) => ['AWS::KinesisFirehose::DeliveryStream', 'AWS::S3::Bucket'].includes(resource.Type) && id !== stack.getLogicalId(inbox.privacyJobs.bucket.node.defaultChild as never))).toEqual([]);
    expect(JSON.stringify(json)).not.toContain('AUDIT_');
  });

  it('in the one-construct variant, turns on with settings.auditRetentionDays', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
    const inbox = new NotificationInbox(stack, 'Notifications', { auth: { mode: 'jwt', issuer: 'https://id.example.com/', audience: 'host', jwksUrl: 'https://id.example.com/jwks.json' }, settings: { auditRetentionDays: 30 } });
    expect(inbox.audit?.drainer).toBeDefined();
    const json = Template.fromStack(stack).toJSON() as CfnTemplate;
    expect(Object.values(json.Resources).filter((resource) => resource.Type === 'AWS::KinesisFirehose::DeliveryStream')).toHaveLength(1);
    expect(new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack).violations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`)).toEqual([]);
  });
});
