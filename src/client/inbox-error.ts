/**
 * Why the inbox could not load or sync, in the three kinds a user interface tells apart: the
 * token was refused or could not be had (sign in again), the service could not be reached
 * (offline, DNS, CORS), or the service answered with an error (try later).
 */
import { InboxApiError, InboxTokenError } from './rest.js';

export type InboxErrorKind = 'unauthorized' | 'network' | 'server';

/** A failed load or sync, as the state and the hooks carry it. */
export class InboxError extends Error {
  override readonly name = 'InboxError';
  constructor(
    readonly kind: InboxErrorKind,
    override readonly cause: Error,
  ) {
    super(cause.message);
  }
}

/** 401/403 or no token -> `unauthorized`; another HTTP answer -> `server`; no answer at all (fetch threw) -> `network`. */
export function errorKindOf(error: unknown): InboxErrorKind {
  if (error instanceof InboxError) return error.kind;
  if (error instanceof InboxTokenError) return 'unauthorized';
  if (error instanceof InboxApiError) return error.status === 401 || error.status === 403 ? 'unauthorized' : 'server';
  // An answer that is not JSON came from something (a proxy page, a gateway error).
  if (error instanceof SyntaxError) return 'server';
  return 'network';
}

export function inboxErrorOf(error: unknown): InboxError {
  if (error instanceof InboxError) return error;
  return new InboxError(errorKindOf(error), error instanceof Error ? error : new Error(String(error)));
}
