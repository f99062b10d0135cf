/** A minimal HTTP router for the local runtime: each local service registers the routes it serves. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface LocalRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: Buffer;
  remoteAddress: string;
}

export interface LocalResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface LocalRoute {
  /** Returns undefined when the route does not serve this request. */
  handle(request: LocalRequest): Promise<LocalResponse | undefined>;
}

const MAX_BODY_BYTES = 1024 * 1024 + 64 * 1024;

class PayloadTooLargeError extends Error {
  override readonly name = 'PayloadTooLargeError';
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new PayloadTooLargeError(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function createRequestListener(routes: () => readonly LocalRoute[], onError: (error: unknown) => void) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const request: LocalRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', 'http://localhost'),
        headers: req.headers,
        body: await readBody(req),
        remoteAddress: req.socket.remoteAddress ?? '127.0.0.1',
      };
      for (const route of routes()) {
        const response = await route.handle(request);
        if (response) {
          res.writeHead(response.status, response.headers ?? {});
          res.end(response.body ?? '');
          return;
        }
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'not_found', message: `no route for ${request.method} ${request.url.pathname}` } }));
    } catch (error) {
      if (error instanceof PayloadTooLargeError && !res.headersSent) {
        // Like API Gateway's 413; the rest of the body is not read, so the connection is not reused.
        res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        res.end(JSON.stringify({ error: { code: 'payload_too_large', message: error.message } }), () => req.destroy());
        return;
      }
      onError(error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'internal_error', message: 'internal error' } }));
    }
  };
}
