/**
 * Live delivery in the local runtime: the WebSocket gateway with the same route compositions as
 * AWS, and the delivery consumers of the urgent and info queues, all talking to `@connections`
 * through the real management API client.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { invokedAs, principalOf, queueConsumer, type AwsCallRecorder } from './aws-calls/call-recorder.js';
import type { LocalFunctionSet } from './function-set.js';
import { startWebSocketGateway, type LocalWebSocketGateway } from './apigateway/websocket-gateway.js';
import type { LocalSqsHandler } from './sqs/message.js';


/** The local urgent / info delivery queues (their consumer settings: batch size, batching window). */
export interface DeliveryQueues {
  urgent: { readonly name: string; attachConsumer(handler: LocalSqsHandler): () => void; readonly maxReceiveCount?: number | undefined };
  info: { readonly name: string; attachConsumer(handler: LocalSqsHandler): () => void; readonly maxReceiveCount?: number | undefined };
}

export interface LocalLiveDelivery {
  gateway: LocalWebSocketGateway;
  close(): Promise<void>;
}

export interface LocalGatewayOptions {
  host: string;
  port: number;
  authorizer: (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
  logger: Logger;
}

/** The WebSocket API on `port` (0 = any free port); its `managementEndpoint` goes into the configs. */
export function startLocalGateway(options: LocalGatewayOptions): Promise<LocalWebSocketGateway> {
  return startWebSocketGateway({ host: options.host, port: options.port, authorizer: options.authorizer, logger: options.logger });
}

export interface LocalLiveDeliveryOptions {
  gateway: LocalWebSocketGateway;
  functions: LocalFunctionSet;
  queues: DeliveryQueues;
  /** Records each function's AWS calls (RECORD_AWS_CALLS). */
  recorder?: AwsCallRecorder;
}

/** Route handlers on the gateway, and the urgent and info delivery consumers (`DELIVERY_MODE` on AWS). */
export function attachLocalLiveDelivery(options: LocalLiveDeliveryOptions): LocalLiveDelivery {
  const { gateway, functions } = options;
  gateway.attach({
    connect: invokedAs(principalOf('ws-connect'), functions.wsConnect),
    disconnect: invokedAs(principalOf('ws-disconnect'), functions.wsDisconnect),
    default: invokedAs(principalOf('ws-default'), functions.wsDefault),
  });
  const detach = (['urgent', 'info'] as const).map((mode) => {
    const queue = options.queues[mode];
    return queue.attachConsumer(queueConsumer(options.recorder, principalOf('delivery', mode), queue.name, functions.delivery(mode, queue.maxReceiveCount)));
  });
  return {
    gateway,
    async close() {
      for (const stop of detach.splice(0)) stop();
      await gateway.close();
    },
  };
}
