/**
 * Live delivery in the local runtime: the WebSocket gateway with the same route compositions as
 * AWS, and the delivery consumers of the urgent and info queues, all talking to `@connections`
 * through the real management API client.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Parts } from '../app/parts.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import type { LocalFunctionConfigs } from './function-configs.js';
import { LOCAL_FUNCTIONS } from './functions.js';
import { startWebSocketGateway, type LocalWebSocketGateway } from './apigateway/websocket-gateway.js';

type DeliveryConsumer = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** The local urgent / info delivery queues (their consumer settings: batch size, batching window). */
export interface DeliveryQueues {
  urgent: { attachConsumer(handler: DeliveryConsumer): () => void; readonly maxReceiveCount?: number | undefined };
  info: { attachConsumer(handler: DeliveryConsumer): () => void; readonly maxReceiveCount?: number | undefined };
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
  parts: Parts;
  configs: LocalFunctionConfigs;
  /** The local scheduler: quiet-hours and rate-limit holds are released through it. */
  scheduler: Scheduler;
  queues: DeliveryQueues;
}

/** Route handlers on the gateway, and the urgent and info delivery consumers (`DELIVERY_MODE` on AWS). */
export function attachLocalLiveDelivery(options: LocalLiveDeliveryOptions): LocalLiveDelivery {
  const { gateway, parts, configs } = options;
  gateway.attach({
    connect: LOCAL_FUNCTIONS['ws-connect'](parts, configs.wsConnect),
    disconnect: LOCAL_FUNCTIONS['ws-disconnect'](parts, configs.wsDisconnect),
    default: LOCAL_FUNCTIONS['ws-default'](parts, configs.wsDefault),
  });
  const detach = (['urgent', 'info'] as const).map((mode) => options.queues[mode].attachConsumer(LOCAL_FUNCTIONS.delivery(parts, configs.delivery(mode), options.scheduler, options.queues[mode].maxReceiveCount === undefined ? {} : { maxReceiveCount: options.queues[mode].maxReceiveCount })));
  return {
    gateway,
    async close() {
      for (const stop of detach.splice(0)) stop();
      await gateway.close();
    },
  };
}
