import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { decodeCursor, encodeCursor } from '../../src/core/read/cursor.js';
import { ValidationError } from '../../src/core/model/errors.js';
import { notificationsEverySecond, T0 } from '../support/fixtures.js';

const SECRET = 'server-secret';
const [before, since] = notificationsEverySecond(2, T0).map((item) => item.id) as [string, string];

/** A cursor in the wire format, signed with any secret and carrying any payload. */
function forge(payload: unknown, secret = SECRET): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

function decodeError(token: string): ValidationError {
  try {
    decodeCursor(token, SECRET);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected the cursor to be refused');
}

describe('cursor round trip', () => {
  it('decodes what it encoded', () => {
    expect(decodeCursor(encodeCursor({ before }, SECRET), SECRET)).toEqual({ before });
  });

  it('keeps the since bound of a catch-up cursor', () => {
    expect(decodeCursor(encodeCursor({ before, since }, SECRET), SECRET)).toEqual({ before, since });
  });

  it('is opaque: URL-safe, and the position is not readable as plain text', () => {
    // Act
    const token = encodeCursor({ before }, SECRET);

    // Assess
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(token).not.toContain(before);
  });
});

describe('refused cursors', () => {
  it.each([
    ['empty', ''],
    ['no signature', 'abc'],
    ['empty signature', 'abc.'],
    ['three parts', 'a.b.c'],
    ['garbage', '!!!.???'],
  ])('%s', (_name, token) => {
    // Act
    const error = decodeError(token);

    // Assess
    expect(error.code).toBe('invalid_cursor');
    expect(error.details[0]?.path).toBe('cursor');
  });

  it('truncated', () => {
    // Prepare
    const token = encodeCursor({ before }, SECRET);

    // Act + Assess
    expect(decodeError(token.slice(0, -3)).code).toBe('invalid_cursor');
    expect(decodeError(token.slice(3)).code).toBe('invalid_cursor');
  });

  it('signed with another secret', () => {
    // Prepare
    const foreign = encodeCursor({ before }, 'another-secret');

    // Act + Assess
    expect(decodeError(foreign).details[0]?.message).toBe('bad signature');
  });

  it('tampered payload with the original signature', () => {
    // Prepare
    const [, signature] = encodeCursor({ before }, SECRET).split('.');
    const tampered = Buffer.from(JSON.stringify({ v: 1, b: since })).toString('base64url');

    // Act + Assess
    expect(decodeError(`${tampered}.${signature}`).details[0]?.message).toBe('bad signature');
  });

  it.each([
    ['wrong version', { v: 2, b: before }, 'unsupported cursor version'],
    ['no version', { b: before }, 'unsupported cursor version'],
    ['position not an id', { v: 1, b: 'T#acme#U#bob' }, 'bad position'],
    ['position missing', { v: 1 }, 'bad position'],
    ['since not an id', { v: 1, b: before, s: 42 }, 'bad since'],
    ['null payload', null, 'unsupported cursor version'],
  ])('%s, even when correctly signed', (_name, payload, reason) => {
    expect(decodeError(forge(payload)).details[0]?.message).toBe(reason);
  });

  it('a signed payload that is not JSON', () => {
    // Prepare
    const body = Buffer.from('not json').toString('base64url');
    const token = `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;

    // Act + Assess
    expect(decodeError(token).details[0]?.message).toBe('payload is not JSON');
  });
});
