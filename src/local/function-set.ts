/**
 * The handlers the local runtime invokes, one per function of the table (`src/lambda/functions.ts`)
 * and variant: composed from the sources (the default), or the esbuild bundles `cdk synth` wrote
 * (`LOCAL_FUNCTIONS=<cdk.out>`, `src/local/deployed/`). The gateways and queues take them from here,
 * so both modes are wired the same way.
 */
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Parts } from '../app/parts.js';
import type { Channel } from '../contract/channels.js';
import type { Priority } from '../core/jobs/delivery-job.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import type { WebSocketEvent, WebSocketResult } from '../handlers/websocket/events.js';
import type { TokenVerifier } from '../adapters/jwt-verifier.js';
import type { LocalFunctionConfigs } from './function-configs.js';
import { LOCAL_FUNCTIONS } from './functions.js';
import type { LocalSqsHandler } from './sqs/message.js';

export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
export type RestHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
export type WebSocketHandler = (event: WebSocketEvent) => Promise<WebSocketResult>;

export interface LocalFunctionSet {
  /** `sources` or the cdk.out directory the bundles came from. */
  readonly from: string;
  authorizer: AuthorizerHandler;
  restRead: RestHandler;
  restWrite: RestHandler;
  restPreferences: RestHandler;
  wsConnect: WebSocketHandler;
  wsDisconnect: WebSocketHandler;
  wsDefault: WebSocketHandler;
  /** The consumer of a queue, given that queue's maxReceiveCount (its handler logs a record's last receive). */
  fanOut(detailType: string, maxReceiveCount: number): LocalSqsHandler;
  promotion(): LocalSqsHandler;
  delivery(mode: Priority, maxReceiveCount: number | undefined): LocalSqsHandler;
  /** Undefined when the channels are off. */
  channel?(channel: Channel, maxReceiveCount: number): LocalSqsHandler;
}

export interface SourceFunctionInputs {
  parts: Parts;
  configs: LocalFunctionConfigs;
  logger: Logger;
  verifier: TokenVerifier;
  /** Deferred sends and holds (the Scheduler target role), and snooze comebacks (the snooze role). */
  schedules: Scheduler;
  snoozeSchedules: Scheduler;
}

/** The compositions of `src/app`, on the local runtime's one Parts and typed configs. */
export function sourceFunctions(inputs: SourceFunctionInputs): LocalFunctionSet {
  const { parts, configs, schedules } = inputs;
  const { channel } = configs;
  return {
    from: 'sources',
    authorizer: LOCAL_FUNCTIONS.authorizer({ logger: inputs.logger }, inputs.verifier),
    restRead: LOCAL_FUNCTIONS['rest-read'](parts, configs.inbox),
    restWrite: LOCAL_FUNCTIONS['rest-write'](parts, configs.inbox, inputs.snoozeSchedules),
    restPreferences: LOCAL_FUNCTIONS['rest-preferences'](parts, configs.preferences),
    wsConnect: LOCAL_FUNCTIONS['ws-connect'](parts, configs.wsConnect),
    wsDisconnect: LOCAL_FUNCTIONS['ws-disconnect'](parts, configs.wsDisconnect),
    wsDefault: LOCAL_FUNCTIONS['ws-default'](parts, configs.wsDefault),
    fanOut: (detailType, maxReceiveCount) => LOCAL_FUNCTIONS.fanout(parts, configs.fanOut(detailType), schedules, { maxReceiveCount }),
    promotion: () => LOCAL_FUNCTIONS['celebrity-promotion'](parts, configs.promotion),
    delivery: (mode, maxReceiveCount) => LOCAL_FUNCTIONS.delivery(parts, configs.delivery(mode), schedules, maxReceiveCount === undefined ? {} : { maxReceiveCount }),
    ...(channel ? { channel: (name: Channel, maxReceiveCount: number) => LOCAL_FUNCTIONS.channel(parts, channel(name), schedules, { maxReceiveCount }) } : {}),
  };
}
