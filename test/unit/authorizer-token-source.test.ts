/**
 * The authorizer decides only on the identity source API Gateway caches its result by: the
 * `Authorization` header on REST, the `token` query parameter on WebSocket $connect. A token from
 * the other place would be cached under a key that does not hold it (REST caches by header), and a
 * token in a REST URL ends up in logs and browser history.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { extractToken, type TokenVerifier } from '../../src/adapters/jwt-verifier.js';
import { createAuthorizerHandler } from '../../src/handlers/authorizer-handler.js';

const REST_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/POST/notifications/read-all';
const CONNECT_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:ws9876/live/$connect';

/** Accepts exactly one token, as alice. */
function verifierFor(validToken: string): TokenVerifier & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    async verify(token) {
      seen.push(token);
      if (token !== validToken) throw new Error('bad token');
      return { tenantId: 'acme', userId: 'alice' };
    },
  };
}

function authorizerEvent(methodArn: string, headers: Record<string, string>, query: Record<string, string> | null): APIGatewayRequestAuthorizerEvent {
  return { type: 'REQUEST', methodArn, headers, queryStringParameters: query } as unknown as APIGatewayRequestAuthorizerEvent;
}

describe('When a REST request carries the token somewhere else than the Authorization header', () => {
  it('refuses a token in the query string, alone or next to a header that is not a Bearer token', async () => {
    // Prepare
    const verifier = verifierFor('good');
    const authorize = createAuthorizerHandler(verifier, new Logger({ logLevel: 'SILENT' }));

    // Act
    const queryOnly = authorize(authorizerEvent(REST_ARN, {}, { token: 'good' }));
    const besideBasic = authorize(authorizerEvent(REST_ARN, { Authorization: 'Basic xyz' }, { token: 'good' }));

    // Assess
    await expect(queryOnly).rejects.toThrow('Unauthorized');
    await expect(besideBasic).rejects.toThrow('Unauthorized');
    expect(verifier.seen).toEqual([]);
  });

  it('uses the Bearer header and never the query token', async () => {
    // Prepare
    const verifier = verifierFor('good');
    const authorize = createAuthorizerHandler(verifier, new Logger({ logLevel: 'SILENT' }));

    // Act
    const result = await authorize(authorizerEvent(REST_ARN, { authorization: 'Bearer good' }, { token: 'other' }));

    // Assess
    expect(result.context).toEqual({ tenantId: 'acme', userId: 'alice' });
    expect(verifier.seen).toEqual(['good']);
  });
});

describe('When a WebSocket $connect carries the token somewhere else than the token query parameter', () => {
  it('refuses a header token (the identity source is route.request.querystring.token)', async () => {
    // Prepare
    const verifier = verifierFor('good');
    const authorize = createAuthorizerHandler(verifier, new Logger({ logLevel: 'SILENT' }));

    // Act
    const headerOnly = authorize(authorizerEvent(CONNECT_ARN, { Authorization: 'Bearer good' }, null));
    const headerBesideBadQuery = authorize(authorizerEvent(CONNECT_ARN, { Authorization: 'Bearer good' }, { token: 'other' }));

    // Assess
    await expect(headerOnly).rejects.toThrow('Unauthorized');
    await expect(headerBesideBadQuery).rejects.toThrow('Unauthorized');
    expect(verifier.seen).toEqual(['other']);
  });

  it('uses the query token', async () => {
    // Prepare
    const authorize = createAuthorizerHandler(verifierFor('good'), new Logger({ logLevel: 'SILENT' }));

    // Act
    const result = await authorize(authorizerEvent(CONNECT_ARN, {}, { token: 'good' }));

    // Assess
    expect(result.context).toEqual({ tenantId: 'acme', userId: 'alice' });
  });
});

describe('extractToken', () => {
  it('reads only the source it is told to', () => {
    // Prepare
    const headers = { Authorization: 'Bearer from-header' };
    const query = { token: 'from-query' };

    // Act / Assess
    expect(extractToken('header', headers, query)).toBe('from-header');
    expect(extractToken('query', headers, query)).toBe('from-query');
    expect(extractToken('header', { authorization: 'Bearer a b' }, query)).toBeUndefined();
    expect(extractToken('query', headers, null)).toBeUndefined();
  });
});
