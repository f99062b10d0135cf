/**
 * Reads the S3 audit archive for `npm run audit -- verify|why` on AWS: the objects under a prefix in
 * key order (Firehose names them by delivery time), each gunzipped when compressed, as lines.
 */
import { createGunzip } from 'node:zlib';
import { type Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { AuditLine } from '../../core/audit/chain.js';
import { linesOf } from '../../core/audit/lines.js';

export async function* s3ArchiveKeys(client: S3Client, bucket: string, prefix: string): AsyncGenerator<string> {
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
    for (const object of page.Contents ?? []) if (object.Key && !object.Key.endsWith('/')) yield object.Key;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

/** Every line of every object under `prefix`, objects in key order. */
export async function* readS3Archive(client: S3Client, bucket: string, prefix: string): AsyncGenerator<AuditLine> {
  for await (const key of s3ArchiveKeys(client, bucket, prefix)) {
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!object.Body) continue;
    const body = object.Body as Readable;
    const gzipped = key.endsWith('.gz') || object.ContentEncoding === 'gzip';
    yield* linesOf(`s3://${bucket}/${key}`, gzipped ? body.pipe(createGunzip()) : body);
  }
}
