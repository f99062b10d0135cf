/**
 * How the operator tools reach the audit trail: locally the archive under DATA_DIR/audit, its key
 * file and the running runtime's salts; on AWS the S3 archive (`--bucket`, `--prefix`), the KMS HMAC
 * key (`--key-arn`) and the Idempotency table's salts (`--table`).
 */
import { FirehoseClient } from '@aws-sdk/client-firehose';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { FileAuditArchive, readLocalArchive } from '../adapters/audit/file-archive.js';
import { FirehoseAuditSink } from '../adapters/audit/firehose-sink.js';
import { KmsAuditKeys } from '../adapters/audit/kms-keys.js';
import { readS3Archive } from '../adapters/audit/s3-archive.js';
import { DynamoAuditSalts } from '../adapters/dynamo/audit-salts.js';
import type { AuditLine } from '../core/audit/chain.js';
import type { AuditKeys, AuditSalts } from '../core/audit/ports.js';
import { localAuditDir } from '../local/audit/local-audit.js';
import { loadLocalAuditKeys } from '../local/audit/local-audit-keys.js';
import type { AuditErasureOptions } from './audit-erasure.js';
import type { OpsTarget } from './targets.js';

/** The archive's lines, in order. */
export interface AuditArchiveReader {
  lines(): AsyncIterable<AuditLine>;
  /** Firehose delivers at least once: exact copies of a record are counted, not failed (S3 only). */
  tolerateDuplicates: boolean;
  destroy(): void;
}

export interface AuditAccess extends AuditArchiveReader {
  keys: AuditKeys;
  salts: AuditSalts;
}

export function localArchiveReader(dataDir: string): AuditArchiveReader {
  const dir = localAuditDir(dataDir);
  return { lines: () => readLocalArchive(dir), tolerateDuplicates: false, destroy: () => undefined };
}

export interface S3ArchiveOptions {
  bucket: string;
  prefix?: string | undefined;
  region?: string | undefined;
}

export function s3ArchiveReader(options: S3ArchiveOptions): AuditArchiveReader {
  const s3 = new S3Client(options.region ? { region: options.region } : {});
  return { lines: () => readS3Archive(s3, options.bucket, options.prefix ?? ''), tolerateDuplicates: true, destroy: () => s3.destroy() };
}

export async function localAuditAccess(dataDir: string, target: Pick<OpsTarget, 'documentClient' | 'idempotencyTable'>): Promise<AuditAccess> {
  return {
    ...localArchiveReader(dataDir),
    keys: await loadLocalAuditKeys(localAuditDir(dataDir)),
    salts: new DynamoAuditSalts(target.documentClient, target.idempotencyTable),
  };
}

export function awsAuditAccess(options: S3ArchiveOptions & { keyArn?: string | undefined }, target: Pick<OpsTarget, 'documentClient' | 'idempotencyTable'>): AuditAccess {
  const reader = s3ArchiveReader(options);
  const kms = new KMSClient(options.region ? { region: options.region } : {});
  return {
    ...reader,
    keys: options.keyArn ? new KmsAuditKeys(kms, options.keyArn) : { tenantKey: () => Promise.reject(new Error('--key-arn (the KMS HMAC key of the pseudonyms) is required')) },
    salts: new DynamoAuditSalts(target.documentClient, target.idempotencyTable),
    destroy: () => {
      reader.destroy();
      kms.destroy();
    },
  };
}

/** What `npm run erase` does to the audit trail: locally always; on AWS the salt always, the record with `--audit-stream` and `--audit-key-arn`. */
export async function auditErasureOptions(target: OpsTarget, options: { dataDir: string; streamName?: string | undefined; keyArn?: string | undefined; region?: string | undefined }): Promise<AuditErasureOptions> {
  const salts = new DynamoAuditSalts(target.documentClient, target.idempotencyTable);
  if (target.kind === 'local') {
    const dir = localAuditDir(options.dataDir);
    // A guest of the runtime's archive: appends its segment, never scans or repairs the file the runtime writes.
    return { salts, record: { sink: new FileAuditArchive(dir, { owner: false, syncIntervalMs: 0 }), keys: await loadLocalAuditKeys(dir) } };
  }
  if (!options.streamName || !options.keyArn) {
    process.stderr.write('note: without --audit-stream and --audit-key-arn the audit salt is deleted but no erasure record is written\n');
    return { salts };
  }
  const region = options.region ? { region: options.region } : {};
  return { salts, record: { sink: new FirehoseAuditSink(new FirehoseClient(region), options.streamName), keys: new KmsAuditKeys(new KMSClient(region), options.keyArn) } };
}
