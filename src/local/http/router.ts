/** A minimal HTTP router for the local runtime: each local service registers the routes it serves. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';

export interface LocalRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: Buffer;
  remoteAddress: string;
  /** The server's address the request arrived on (equal to `remoteAddress` for a caller on this machine). */
  localAddress: string;
}

const LOOPBACK_ADDRESSES = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const LOOPBACK_HOST_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The host name of a Host header (`[::1]:3001` -> `[::1]`, `localhost:3001` -> `localhost`), lower case. */
export function hostNameOf(host: string | undefined): string {
  const value = (host ?? '').toLowerCase();
  return value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.split(':')[0]!;
}

/** A loopback caller that addressed this server by a loopback name (the dev-only routes). */
export function isLoopbackCaller(request: LocalRequest): boolean {
  return LOOPBACK_ADDRESSES.has(request.remoteAddress) && LOOPBACK_HOST_NAMES.has(hostNameOf(request.headers.host));
}

/**
 * A caller on this machine that addressed this server by a loopback name or by `serverHost` (the
 * name it listens on). Local stand-ins of IAM-protected AWS APIs answer only such callers: not the
 * network when HOST is 0.0.0.0, and not a page in the developer's browser whose own name was rebound
 * to 127.0.0.1 (DNS rebinding: its Host header still names that site).
 */
export function isCallerOnThisMachine(request: LocalRequest, serverHost: string): boolean {
  const sameMachine = LOOPBACK_ADDRESSES.has(request.remoteAddress) || request.remoteAddress === request.localAddress;
  const hostName = hostNameOf(request.headers.host);
  return sameMachine && (LOOPBACK_HOST_NAMES.has(hostName) || hostName === serverHost.toLowerCase());
}

/** An IP literal (`127.0.0.1`, `[::1]`): a browser sends one only for a page loaded from that address, so it cannot be a rebound DNS name. */
function isIpLiteral(hostName: string): boolean {
  return isIP(hostName.startsWith('[') ? hostName.slice(1, -1) : hostName) !== 0;
}

/**
 * The Host check of every local endpoint (no DNS rebinding from a browser tab): a loopback name,
 * an IP literal, or one of `extraHostNames` (e.g. a HOST the runtime listens on by name).
 */
export function isAllowedHost(host: string | undefined, extraHostNames: readonly string[] = []): boolean {
  const hostName = hostNameOf(host);
  return LOOPBACK_HOST_NAMES.has(hostName) || isIpLiteral(hostName) || extraHostNames.some((name) => name.toLowerCase() === hostName);
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

export interface RequestListenerOptions {
  /** Host names accepted besides loopback names and IP literals (the listen HOST when it is a name). */
  extraHostNames?: readonly string[];
}

export function createRequestListener(routes: () => readonly LocalRoute[], onError: (error: unknown) => void, options: RequestListenerOptions = {}) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    if (!isAllowedHost(req.headers.host, options.extraHostNames)) {
      // A page whose own name was rebound to this machine: refused before the body is read.
      res.writeHead(403, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: { code: 'forbidden', message: 'Host is not a name of this local runtime' } }), () => req.destroy());
      return;
    }
    try {
      const request: LocalRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', 'http://localhost'),
        headers: req.headers,
        body: await readBody(req),
        remoteAddress: req.socket.remoteAddress ?? '127.0.0.1',
        localAddress: req.socket.localAddress ?? '127.0.0.1',
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
