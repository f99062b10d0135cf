/**
 * The stateful half of the audit trail: the WORM archive bucket and the pseudonyms' HMAC key.
 *
 * `AuditArchive` is an S3 bucket with Object Lock in COMPLIANCE mode (default retention = a
 * setting; no principal, root included, can delete a locked version or shorten its lock), versioned,
 * encrypted with its own KMS key (bucket key on), TLS only, no public access, and a bucket policy
 * that denies every principal the calls that would delete (delete markers included) or weaken the
 * lock. Deploy it in this app's data stack, or in a separate logging account (`writerRoleArns`: the
 * app account's Firehose role, given cross-account write; nothing else).
 *
 * `createPseudonymKey`: a KMS HMAC_256 key (GENERATE_VERIFY_MAC). The functions ask it for a
 * tenant's key (`kms:GenerateMac`, src/adapters/audit/kms-keys.ts); it never leaves KMS. Retained:
 * deleting it would unlink every record of every user at once.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AnyPrincipal, ArnPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectLockRetention } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.js';

/** What Firehose needs on its destination bucket (AWS's documented set) — no delete, no retention call. */
export const ARCHIVE_WRITE_ACTIONS = ['s3:AbortMultipartUpload', 's3:GetBucketLocation', 's3:GetObject', 's3:ListBucket', 's3:ListBucketMultipartUploads', 's3:PutObject'] as const;
/** Denied to every principal by the bucket policy: deleting (versions or via delete markers) or weakening the lock. */
export const ARCHIVE_DENIED_ACTIONS = ['s3:DeleteObject', 's3:DeleteObjectVersion', 's3:PutBucketObjectLockConfiguration', 's3:PutBucketVersioning', 's3:BypassGovernanceRetention'] as const;

export interface AuditArchiveProps {
  /** Days every object is locked in compliance mode (it cannot be shortened afterwards). */
  retentionDays: number;
  /** Roles in OTHER accounts that deliver here (the app account's Firehose role): write and encrypt, nothing more. */
  writerRoleArns?: readonly string[];
}

export class AuditArchive extends Construct {
  readonly bucket: Bucket;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: AuditArchiveProps) {
    super(scope, id);
    if (!Number.isInteger(props.retentionDays) || props.retentionDays < 1) throw new Error(`${this.node.path}: retentionDays must be a whole number of days >= 1, got ${props.retentionDays}`);
    // Retained whatever the app's removal policy: locked objects outlive the stack, and so must their key.
    this.key = new Key(this, 'Key', { description: 'Encrypts the audit archive (Object Lock, compliance mode)', enableKeyRotation: true, removalPolicy: RemovalPolicy.RETAIN, pendingWindow: Duration.days(30) });
    this.bucket = new Bucket(this, 'Bucket', {
      objectLockEnabled: true,
      objectLockDefaultRetention: ObjectLockRetention.compliance(Duration.days(props.retentionDays)),
      versioned: true,
      encryption: BucketEncryption.KMS,
      encryptionKey: this.key,
      bucketKeyEnabled: true,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'NoDeleteNoWeakerLock',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: [...ARCHIVE_DENIED_ACTIONS],
        resources: [this.bucket.bucketArn, this.bucket.arnForObjects('*')],
      }),
    );
    const writers = (props.writerRoleArns ?? []).map((arn) => new ArnPrincipal(arn));
    if (writers.length > 0) {
      this.bucket.addToResourcePolicy(new PolicyStatement({ sid: 'CrossAccountWriters', principals: writers, actions: [...ARCHIVE_WRITE_ACTIONS], resources: [this.bucket.bucketArn, this.bucket.arnForObjects('*')] }));
      this.key.addToResourcePolicy(new PolicyStatement({ sid: 'CrossAccountWriters', principals: writers, actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resources: ['*'] }));
    }
    acknowledge(
      this.bucket,
      'AwsSolutions-S1',
      'A bucket with Object Lock cannot be a log target and its access logs would need a second, unlocked bucket; its writes come from one Firehose role and its reads from operators, which CloudTrail records (enable S3 data events for it in a trail of the logging account).',
    );
  }
}

/** The KMS HMAC key of the audit pseudonyms (tenant keys are its MACs). */
export function createPseudonymKey(scope: Construct, id = 'AuditPseudonymKey'): Key {
  const key = new Key(scope, id, {
    description: 'HMAC key of the audit trail pseudonyms (GenerateMac only; never leaves KMS)',
    keySpec: KeySpec.HMAC_256,
    keyUsage: KeyUsage.GENERATE_VERIFY_MAC,
    removalPolicy: RemovalPolicy.RETAIN,
    pendingWindow: Duration.days(30),
  });
  return key;
}
