/**
 * Who the local stand-ins of IAM-protected or dev-only APIs answer: callers on this machine that
 * name this server (the `@connections` API), loopback callers that name a loopback host (`/dev/token`).
 */
import { describe, expect, it } from 'vitest';
import { hostNameOf, isCallerOnThisMachine, isLoopbackCaller, type LocalRequest } from '../../src/local/http/router.js';

function aRequest(remoteAddress: string, localAddress: string, host: string | undefined): LocalRequest {
  return { method: 'POST', url: new URL('http://x/local/@connections/abc='), headers: host === undefined ? {} : { host }, body: Buffer.alloc(0), remoteAddress, localAddress };
}

describe('hostNameOf', () => {
  it('drops the port, keeps IPv6 brackets and lower-cases', () => {
    expect(hostNameOf('LocalHost:3001')).toBe('localhost');
    expect(hostNameOf('[::1]:3001')).toBe('[::1]');
    expect(hostNameOf(undefined)).toBe('');
  });
});

describe('When the runtime listens on loopback (the default)', () => {
  it('answers loopback callers naming a loopback host, and refuses a rebound name', () => {
    expect(isCallerOnThisMachine(aRequest('127.0.0.1', '127.0.0.1', '127.0.0.1:3001'), '127.0.0.1')).toBe(true);
    expect(isCallerOnThisMachine(aRequest('::1', '::1', '[::1]:3001'), '127.0.0.1')).toBe(true);
    expect(isCallerOnThisMachine(aRequest('127.0.0.1', '127.0.0.1', 'evil.example:3001'), '127.0.0.1')).toBe(false);
    expect(isCallerOnThisMachine(aRequest('127.0.0.1', '127.0.0.1', undefined), '127.0.0.1')).toBe(false);
  });
});

describe('When the runtime listens on every interface (HOST=0.0.0.0)', () => {
  it("answers this machine's own callers and refuses another machine", () => {
    expect(isCallerOnThisMachine(aRequest('127.0.0.1', '127.0.0.1', '0.0.0.0:3001'), '0.0.0.0')).toBe(true);
    expect(isCallerOnThisMachine(aRequest('192.168.1.5', '192.168.1.5', 'localhost:3001'), '0.0.0.0')).toBe(true);
    expect(isCallerOnThisMachine(aRequest('192.168.1.9', '192.168.1.5', '192.168.1.5:3001'), '0.0.0.0')).toBe(false);
  });
});

describe('When the runtime listens on a LAN address (HOST=192.168.1.5)', () => {
  it('answers the delivery client that calls that address from this machine', () => {
    expect(isCallerOnThisMachine(aRequest('192.168.1.5', '192.168.1.5', '192.168.1.5:3001'), '192.168.1.5')).toBe(true);
    expect(isCallerOnThisMachine(aRequest('192.168.1.9', '192.168.1.5', '192.168.1.5:3001'), '192.168.1.5')).toBe(false);
  });
});

describe('isLoopbackCaller (dev-only routes)', () => {
  it('needs both a loopback address and a loopback host name', () => {
    expect(isLoopbackCaller(aRequest('127.0.0.1', '127.0.0.1', 'localhost:3000'))).toBe(true);
    expect(isLoopbackCaller(aRequest('::ffff:127.0.0.1', '::ffff:127.0.0.1', '127.0.0.1:3000'))).toBe(true);
    expect(isLoopbackCaller(aRequest('127.0.0.1', '127.0.0.1', 'rebound.example:3000'))).toBe(false);
    expect(isLoopbackCaller(aRequest('192.168.1.9', '192.168.1.5', 'localhost:3000'))).toBe(false);
  });
});
