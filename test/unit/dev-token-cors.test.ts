/**
 * `/dev/token` for a separate dev server (issue 30): a page of another origin may read a token
 * only when CORS_ALLOW_ORIGINS names its origin, or, with the default `*`, when the page is on a
 * loopback host; a site on the internet never gets CORS headers, and the preflight says the same.
 */
import { describe, expect, it } from 'vitest';
import { createDemoPageRoute, devRouteCorsHeaders } from '../../src/local/demo-page.js';
import type { LocalRequest } from '../../src/local/http/router.js';
import type { LocalSecrets } from '../../src/local/signing-key.js';

const secrets = { issueToken: async () => 'signed.jwt.token' } as unknown as LocalSecrets;
const endpoints = () => ({ http: 'http://127.0.0.1:3000', ws: 'ws://127.0.0.1:3001', events: 'http://127.0.0.1:3000', eventBusName: 'notifications' });

function aRequest(method: string, origin: string | undefined): LocalRequest {
  return {
    method,
    url: new URL('http://127.0.0.1:3000/dev/token'),
    headers: { host: '127.0.0.1:3000', ...(origin ? { origin } : {}), 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ tenantId: 'acme', userId: 'alice' })),
    remoteAddress: '127.0.0.1',
    localAddress: '127.0.0.1',
  } as LocalRequest;
}

describe('/dev/token CORS', () => {
  it('answers a page on a loopback host with the default *, and no site on the internet', async () => {
    // Prepare
    const route = createDemoPageRoute({ secrets, endpoints });

    // Act
    const fromDevServer = await route.handle(aRequest('POST', 'http://localhost:5173'));
    const preflight = await route.handle(aRequest('OPTIONS', 'http://localhost:5173'));
    const fromSite = await route.handle(aRequest('POST', 'https://evil.example'));
    const sitePreflight = await route.handle(aRequest('OPTIONS', 'https://evil.example'));

    // Assess
    expect(fromDevServer?.status).toBe(200);
    expect(fromDevServer?.headers).toMatchObject({ 'access-control-allow-origin': 'http://localhost:5173', vary: 'Origin' });
    expect(preflight).toMatchObject({ status: 204, headers: { 'access-control-allow-origin': 'http://localhost:5173', 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'content-type' } });
    expect(fromSite?.headers?.['access-control-allow-origin']).toBeUndefined();
    expect(sitePreflight?.headers?.['access-control-allow-origin']).toBeUndefined();
  });

  it('answers exactly the origins CORS_ALLOW_ORIGINS names when it names some', async () => {
    const route = createDemoPageRoute({ secrets, endpoints, corsAllowOrigins: ['https://app.test:8443'] });
    expect((await route.handle(aRequest('POST', 'https://app.test:8443')))?.headers?.['access-control-allow-origin']).toBe('https://app.test:8443');
    expect((await route.handle(aRequest('POST', 'http://localhost:5173')))?.headers?.['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses odd origins', () => {
    expect(devRouteCorsHeaders('null', ['*'])).toEqual({});
    expect(devRouteCorsHeaders('file://', ['*'])).toEqual({});
    expect(devRouteCorsHeaders('http://localhost.evil.example', ['*'])).toEqual({});
    expect(devRouteCorsHeaders(undefined, ['*'])).toEqual({});
  });
});
