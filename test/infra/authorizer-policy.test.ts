/**
 * The Lambda authorizer's policy must match the method ARNs API Gateway really sends, for both APIs
 * this app deploys (REST v1 with a cached result across routes, and WebSocket $connect).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createAuthorizerHandler } from '../../src/handlers/authorizer-handler.js';

const verifier = { verify: async () => ({ tenantId: 'acme', userId: 'alice' }) };
const authorize = createAuthorizerHandler(verifier, new Logger({ logLevel: 'SILENT' }));

/** The token where API Gateway sends it: the Authorization header (REST), the `token` query parameter ($connect). */
function event(methodArn: string): APIGatewayRequestAuthorizerEvent {
  const connect = methodArn.endsWith('/$connect');
  return {
    type: 'REQUEST',
    methodArn,
    headers: connect ? {} : { Authorization: 'Bearer t' },
    queryStringParameters: connect ? { token: 't' } : null,
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

describe('When the authorizer allows a verified token', () => {
  it('allows every method of the REST stage (a cached result serves GET and POST routes)', async () => {
    const result = await authorize(event('arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/notifications'));
    expect(result.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/*' }]);
  });

  it('allows the WebSocket $connect route of the stage', async () => {
    const result = await authorize(event('arn:aws:execute-api:eu-west-1:123456789012:ws9876/live/$connect'));
    expect(result.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:ws9876/live/*' }]);
    expect(result.context).toEqual({ tenantId: 'acme', userId: 'alice' });
  });
});
