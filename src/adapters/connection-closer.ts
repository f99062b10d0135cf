/** Closes a live connection through the `@connections` API (DeleteConnection); a connection already gone is closed. */
import { DeleteConnectionCommand, GoneException, type ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';

export function connectionCloser(client: ApiGatewayManagementApiClient): (connectionId: string) => Promise<void> {
  return async (connectionId) => {
    try {
      await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
    } catch (error) {
      if (error instanceof GoneException || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410) return;
      throw error;
    }
  };
}
