/**
 * The local REST API's authorizer result cache (src/local/apigateway/authorizer-cache.ts): API
 * Gateway's 5-minute cache by Authorization header, ending at the token's own expiry (stricter than
 * AWS), successful results only, bounded.
 */
import { describe, expect, it } from 'vitest';
import { AUTHORIZER_CACHE_TTL_MS, AuthorizerResultCache } from '../../src/local/apigateway/authorizer-cache.js';

const bearer = (claims: Record<string, unknown>) => `Bearer h.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.s`;
const identity = { principalId: 'acme/alice', context: { tenantId: 'acme', userId: 'alice' } };

describe('AuthorizerResultCache', () => {
  it('answers a header authorized before, for 5 minutes', () => {
    let now = 1_000_000;
    const cache = new AuthorizerResultCache(() => now);
    const header = bearer({ exp: 1_000_000 + 3_600 });
    cache.set(header, identity);
    expect(cache.get(header)).toEqual(identity);
    now += AUTHORIZER_CACHE_TTL_MS - 1;
    expect(cache.get(header)).toEqual(identity);
    now += 1;
    expect(cache.get(header)).toBeUndefined();
  });

  it("ends at the token's expiry when that comes first, keeps nothing without one, and tells other headers apart", () => {
    let now = 10_000_000;
    const cache = new AuthorizerResultCache(() => now);
    const soon = bearer({ exp: (10_000_000 + 60_000) / 1000 });
    cache.set(soon, identity);
    cache.set(bearer({ sub: 'no exp' }), identity);
    cache.set('Bearer not-a-jwt', identity);
    cache.set(bearer({ exp: 1 }), identity);
    expect(cache.get(soon)).toEqual(identity);
    expect(cache.get(bearer({ sub: 'no exp' }))).toBeUndefined();
    expect(cache.get('Bearer not-a-jwt')).toBeUndefined();
    expect(cache.get(bearer({ exp: 1 }))).toBeUndefined();
    expect(cache.get(bearer({ exp: (10_000_000 + 60_000) / 1000, x: 1 }))).toBeUndefined();
    expect(cache.get(undefined)).toBeUndefined();
    now += 60_000;
    expect(cache.get(soon)).toBeUndefined();
  });

  it('holds at most 10,000 headers, the oldest going first', () => {
    const cache = new AuthorizerResultCache(() => 0);
    const headers = Array.from({ length: 10_001 }, (_, n) => bearer({ exp: 3_600, n }));
    for (const header of headers) cache.set(header, identity);
    expect(cache.get(headers[0])).toBeUndefined();
    expect(cache.get(headers[1])).toEqual(identity);
    expect(cache.get(headers[10_000])).toEqual(identity);
  });
});
