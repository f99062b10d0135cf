/**
 * Opaque, versioned, signed pagination cursors. A cursor holds only ids (the position), never a
 * partition: the partition always comes from the verified token, so a cursor cannot reach another
 * user's data.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isNotificationId } from './ids.js';
import { ValidationError } from './errors.js';

export interface InboxCursor {
  /** Items strictly older than this id. */
  before: string;
  /** Catch-up mode: items strictly newer than this id. */
  since?: string;
}

const VERSION = 1;

function sign(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function encodeCursor(cursor: InboxCursor, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ v: VERSION, b: cursor.before, s: cursor.since })).toString('base64url');
  return `${payload}.${sign(payload, secret)}`;
}

function invalid(reason: string): ValidationError {
  return new ValidationError('cursor is malformed or was not issued by this server', [{ path: 'cursor', message: reason }], 'invalid_cursor');
}

export function decodeCursor(token: string, secret: string): InboxCursor {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) throw invalid('expected <payload>.<signature>');
  const expected = Buffer.from(sign(payload, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid('bad signature');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid('payload is not JSON');
  }
  const { v, b, s } = (parsed ?? {}) as { v?: unknown; b?: unknown; s?: unknown };
  if (v !== VERSION) throw invalid('unsupported cursor version');
  if (typeof b !== 'string' || !isNotificationId(b)) throw invalid('bad position');
  if (s !== undefined && (typeof s !== 'string' || !isNotificationId(s))) throw invalid('bad since');
  return s === undefined ? { before: b } : { before: b, since: s };
}
