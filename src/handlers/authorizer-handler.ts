/**
 * Lambda REQUEST authorizer for `jwt` auth mode: REST requests (Authorization header) and WebSocket
 * $connect (`token` query parameter), each read only from its own place. Passes tenant and user to
 * the integration as context.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';
import { extractToken, type TokenSource, type TokenVerifier } from '../adapters/jwt-verifier.js';

/**
 * Every method of the stage: the result may be cached per token across routes. A method ARN is
 * `arn:aws:execute-api:{region}:{account}:{apiId}/{stage}/{verb}/{path}` (REST) or
 * `...:{apiId}/{stage}/{route}` (WebSocket): the API id is part of the first segment.
 */
function stageWildcard(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}

/** WebSocket $connect takes its token from the query; REST methods from the Authorization header. */
function tokenSourceOf(methodArn: string): TokenSource {
  return methodArn.endsWith('/$connect') ? 'query' : 'header';
}

export function createAuthorizerHandler(verifier: TokenVerifier, logger: Logger) {
  return async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const token = extractToken(tokenSourceOf(event.methodArn), event.headers, event.queryStringParameters);
    if (!token) throw new Error('Unauthorized');
    try {
      const user = await verifier.verify(token);
      return {
        principalId: `${user.tenantId}/${user.userId}`,
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageWildcard(event.methodArn) }],
        },
        context: { tenantId: user.tenantId, userId: user.userId, ...(user.email ? { email: user.email } : {}), ...(user.phoneNumber ? { phoneNumber: user.phoneNumber } : {}) },
      };
    } catch (error) {
      logger.warn('token refused', { reason: (error as Error).message });
      // API Gateway answers 401 for exactly this message.
      throw new Error('Unauthorized');
    }
  };
}
