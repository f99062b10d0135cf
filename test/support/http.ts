/** A small typed HTTP client for end-to-end tests. */
import { createServer } from 'node:net';
import type { Notification } from '../../src/core/model/notification.js';

export interface HttpAnswer {
  status: number;
  body: unknown;
  text: string;
}

export async function call(baseUrl: string, method: string, path: string, options: { token?: string; body?: string; headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: options.body });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body, text };
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' && typeof (error as { message?: unknown }).message === 'string';
}

/** The body of GET /notifications. */
export interface PageBody {
  items: Notification[];
  nextCursor: string | null;
}
/** The body of GET /notifications/counts. */
export interface CountsBody {
  unread: number;
  unseen: number;
  capped: boolean;
  newestId: string | null;
}
