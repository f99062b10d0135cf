/**
 * Verifies an AWS Signature Version 4 `Authorization` header the way AWS does: the request that
 * arrived (method, path, query, the headers the caller signed and the body actually received) is
 * signed again with `@smithy/signature-v4`, the SDK's own signer, for the date, region and service
 * of the caller's credential scope, and the two signatures are compared in constant time. The payload
 * hash is always that of the received body: an `x-amz-content-sha256` header that does not match it
 * is refused, so a captured request replayed with another body never verifies.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import type { LocalRequest } from '../http/router.js';
import type { LocalSqsCredentials } from './credentials.js';

export type SigV4ErrorCode = 'MissingAuthenticationToken' | 'IncompleteSignature' | 'InvalidClientTokenId' | 'SignatureDoesNotMatch';

export interface SigV4Failure {
  code: SigV4ErrorCode;
  message: string;
}

/** AWS refuses a signature dated more than 15 minutes from its clock. */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;

function headerValue(request: LocalRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(',') : value;
}

/** `YYYYMMDDTHHMMSSZ` -> epoch ms (NaN when malformed). */
function amzDateMs(amzDate: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!match) return Number.NaN;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  return Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
}

const mismatch: SigV4Failure = { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };

/** The request as the caller's signer saw it: only the headers it signed, the path as sent, the body as received. */
function signableRequest(request: LocalRequest, signedHeaders: readonly string[]): HttpRequest {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of request.url.searchParams) {
    const existing = query[key];
    query[key] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  const headers = Object.fromEntries(signedHeaders.map((name) => [name, headerValue(request, name) ?? '']));
  return { method: request.method, protocol: 'http:', hostname: request.url.hostname, path: request.url.pathname, query, headers, body: request.body };
}

/** Undefined when `request` carries a valid SigV4 signature by `credentials` for `service`; else why not. */
export async function verifySigV4(request: LocalRequest, credentials: LocalSqsCredentials, service: string, nowMs = Date.now()): Promise<SigV4Failure | undefined> {
  const authorization = headerValue(request, 'authorization')?.trim();
  if (!authorization) return { code: 'MissingAuthenticationToken', message: 'Request is missing Authentication Token' };
  const parts = AUTHORIZATION.exec(authorization);
  if (!parts) return { code: 'IncompleteSignature', message: 'Authorization header requires AWS4-HMAC-SHA256 with Credential, SignedHeaders and Signature' };
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
  // The signer would trust this header as the body's hash; it must be the hash of the body received.
  const declaredHash = headerValue(request, 'x-amz-content-sha256');
  if (declaredHash !== undefined && declaredHash !== createHash('sha256').update(request.body).digest('hex')) {
    return { code: 'SignatureDoesNotMatch', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  }
  const signer = new SignatureV4({ credentials, region, service, sha256: Sha256, applyChecksum: false });
  // Every header the caller signed is signed again, including ones the SDK would not sign by default.
  const signed = await signer.sign(signableRequest(request, signedHeaders), { signingDate: new Date(signedAt), signableHeaders: new Set(signedHeaders), unsignableHeaders: new Set() });
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization ?? signed.headers.Authorization ?? ''))?.[1];
  const recomputedHeaders = /SignedHeaders=([^,\s]+)/.exec(String(signed.headers.authorization ?? signed.headers.Authorization ?? ''))?.[1];
  if (!expected || recomputedHeaders !== signedHeadersList) return mismatch;
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(signature, 'hex')) ? undefined : mismatch;
}
