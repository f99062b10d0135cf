/**
 * Opaque, versioned, signed pagination cursors. A cursor holds only ids (the position), never a
 * partition: the partition always comes from the verified token, so a cursor cannot reach another
 * user's data.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isNotificationId, TYPE_NAME_PATTERN } from '../model/ids.js';
import { ValidationError } from '../model/errors.js';

export interface InboxCursor {
  /** Items strictly older than this id. */
  before: string;
  /** Catch-up mode: items strictly newer than this id. */
  since?: string;
  /** The page's filter, kept by every next page. */
  filter?: InboxFilter;
}

/** State and type filters of a page (`GET /notifications?read=&archived=&type=&category=&tags=`, resolved to types). */
export interface InboxFilter {
  read?: boolean;
  /** Default false: the list shows what is not archived; true shows the archive. */
  archived?: boolean;
  /** Only these types (a category or tags resolve to their types); empty = nothing matches. */
  types?: string[];
}

function filterFrom(value: unknown): InboxFilter | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { r, a, t } = value as { r?: unknown; a?: unknown; t?: unknown };
  if ((r !== undefined && typeof r !== 'boolean') || (a !== undefined && typeof a !== 'boolean')) return undefined;
  if (t !== undefined && (!Array.isArray(t) || t.length > 50 || !t.every((type) => typeof type === 'string' && TYPE_NAME_PATTERN.test(type)))) return undefined;
  return { ...(r !== undefined ? { read: r } : {}), ...(a !== undefined ? { archived: a } : {}), ...(t !== undefined ? { types: t as string[] } : {}) };
}

const VERSION = 1;

function sign(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function encodeCursor(cursor: InboxCursor, secret: string): string {
  const f = cursor.filter ? { r: cursor.filter.read, a: cursor.filter.archived, t: cursor.filter.types } : undefined;
  const payload = Buffer.from(JSON.stringify({ v: VERSION, b: cursor.before, s: cursor.since, f })).toString('base64url');
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
  const { v, b, s, f } = (parsed ?? {}) as { v?: unknown; b?: unknown; s?: unknown; f?: unknown };
  if (v !== VERSION) throw invalid('unsupported cursor version');
  if (typeof b !== 'string' || !isNotificationId(b)) throw invalid('bad position');
  if (s !== undefined && (typeof s !== 'string' || !isNotificationId(s))) throw invalid('bad since');
  const filter = f === undefined ? undefined : filterFrom(f);
  if (f !== undefined && filter === undefined) throw invalid('bad filter');
  return { before: b, ...(s !== undefined ? { since: s } : {}), ...(filter ? { filter } : {}) };
}
