/**
 * API Gateway management API (`POST /@connections/{id}`) through the real SDK client. The client is
 * injected: on AWS it points at `https://{apiId}.execute-api.{region}.amazonaws.com/{stage}`,
 * locally at the local WebSocket gateway, which serves the same API.
 */
import { ApiGatewayManagementApiClient, GoneException, PostToConnectionCommand, type ApiGatewayManagementApiClientConfig } from '@aws-sdk/client-apigatewaymanagementapi';
import type { ConnectionPusher, PostOutcome } from '../core/ports/live.js';

const encoder = new TextEncoder();

export function createManagementApiClient(endpoint: string, config: ApiGatewayManagementApiClientConfig = {}): ApiGatewayManagementApiClient {
  return new ApiGatewayManagementApiClient({ ...config, endpoint });
}

export class ApiGatewayConnectionPusher implements ConnectionPusher {
  constructor(private readonly client: ApiGatewayManagementApiClient) {}

  /** 'gone' for 410 (the connection no longer exists); any other error is thrown for a retry. */
  async post(connectionId: string, payload: string): Promise<PostOutcome> {
    try {
      await this.client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: encoder.encode(payload) }));
      return 'sent';
    } catch (error) {
      if (error instanceof GoneException || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410) return 'gone';
      throw error;
    }
  }
}
