/** Shared builders of live delivery: the `@connections` management client and its pusher, one per endpoint. */
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { ApiGatewayConnectionPusher, createManagementApiClient } from '../adapters/connection-pusher.js';
import { clientOptions, type Parts, instrumented } from './parts.js';

export function managementClient(parts: Parts, endpoint: string): ApiGatewayManagementApiClient {
  return parts.shared(managementClient, [endpoint], () => instrumented(parts, createManagementApiClient(endpoint, clientOptions(parts))));
}

export function connectionPusher(parts: Parts, endpoint: string): ApiGatewayConnectionPusher {
  return parts.shared(connectionPusher, [endpoint], () => new ApiGatewayConnectionPusher(managementClient(parts, endpoint)));
}
