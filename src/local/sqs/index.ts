/** The local SQS stand-in: what the local wiring and tests import. */
export { LocalQueue, QueueClosedError, QueueDoesNotExistError, type LocalQueueOptions } from './queue-store.js';
export type { LocalMessage, LocalSqsHandler, SentMessage } from './message.js';
export type { ConsumerOptions } from './event-source-mapping.js';
export { LocalQueueRegistry } from './queue-registry.js';
export { createSqsRoute, type SqsRouteOptions } from './sqs-protocol.js';
export { loadLocalSqsCredentials, type LocalSqsCredentials } from './credentials.js';
export { localLambdaContext, DEFAULT_FUNCTION_TIMEOUT_MS } from './lambda-context.js';
export { LOCAL_ACCOUNT_ID } from './local-account.js';
