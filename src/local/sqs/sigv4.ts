/**
 * Verifies an AWS Signature Version 4 `Authorization` header for real: recomputes the canonical
 * request (method, path, query, the headers the caller signed, payload hash), the string to sign
 * and the HMAC chain from the secret key, and compares the signatures in constant time.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { LocalRequest } from '../http/router.js';
import type { LocalSqsCredentials } from './credentials.js';

export type SigV4ErrorCode = 'MissingAuthenticationToken' | 'IncompleteSignature' | 'InvalidClientTokenId' | 'SignatureDoesNotMatch';

export interface SigV4Failure {
  code: SigV4ErrorCode;
  message: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** AWS refuses a signature dated more than 15 minutes from its clock. */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as the SDK's signer escapes URI parts. */
const escapeUri = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function canonicalPath(pathname: string): string {
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    path = pathname;
  }
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalized = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return escapeUri(normalized).replace(/%2F/g, '/');
}

function canonicalQuery(url: URL): string {
  return Array.from(url.searchParams.entries())
    .filter(([key]) => key.toLowerCase() !== 'x-amz-signature')
    .map(([key, value]) => `${escapeUri(key)}=${escapeUri(value)}`)
    .sort()
    .join('&');
}

function headerValue(request: LocalRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value.join(',') : value).trim().replace(/\s+/g, ' ');
}

/** `YYYYMMDDTHHMMSSZ` -> epoch ms (NaN when malformed). */
function amzDateMs(amzDate: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!match) return Number.NaN;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  return Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
}

/** Undefined when `request` carries a valid SigV4 signature by `credentials` for `service`; else why not. */
export function verifySigV4(request: LocalRequest, credentials: LocalSqsCredentials, service: string, nowMs = Date.now()): SigV4Failure | undefined {
  const authorization = headerValue(request, 'authorization');
  if (!authorization) return { code: 'MissingAuthenticationToken', message: 'Request is missing Authentication Token' };
  const parts = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!parts) return { code: 'IncompleteSignature', message: `Authorization header requires ${ALGORITHM} with Credential, SignedHeaders and Signature` };
  const [, credential, signedHeadersList, signature] = parts as unknown as [string, string, string, string];
  const [accessKeyId, date, region, scopeService, terminator, ...extra] = credential.split('/');
  if (accessKeyId !== credentials.accessKeyId) return { code: 'InvalidClientTokenId', message: 'The security token included in the request is invalid.' };
  if (!date || !region || scopeService !== service || terminator !== 'aws4_request' || extra.length > 0) return { code: 'IncompleteSignature', message: `Credential scope must be <date>/<region>/${service}/aws4_request` };
  const amzDate = headerValue(request, 'x-amz-date') ?? '';
  const signedAt = amzDateMs(amzDate);
  if (!Number.isFinite(signedAt) || !amzDate.startsWith(date)) return { code: 'IncompleteSignature', message: 'X-Amz-Date is missing or does not match the credential scope date' };
  if (Math.abs(nowMs - signedAt) > MAX_CLOCK_SKEW_MS) return { code: 'SignatureDoesNotMatch', message: 'Signature expired: the request time is more than 15 minutes from the server time' };
  const signedHeaders = signedHeadersList.split(';');
  if (!signedHeaders.includes('host') || signedHeaders.some((name, i) => name !== name.toLowerCase() || (i > 0 && signedHeaders[i - 1]! >= name))) {
    return { code: 'IncompleteSignature', message: 'SignedHeaders must be sorted, lower case, and include host' };
  }
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${headerValue(request, name) ?? ''}\n`).join('');
  const payloadHash = headerValue(request, 'x-amz-content-sha256') ?? sha256Hex(request.body);
  const canonicalRequest = [request.method, canonicalPath(request.url.pathname), canonicalQuery(request.url), canonicalHeaders, signedHeadersList, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, date), region), service), 'aws4_request');
  const expected = createHmac('sha256', signingKey).update(stringToSign).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };
  }
  return undefined;
}
