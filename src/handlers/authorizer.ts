/** Lambda entry: JWT authorizer (`jwt` auth mode) for REST and WebSocket $connect. */
import { Logger } from '@aws-lambda-powertools/logger';
import { createAuthorizerHandler } from './authorizer-handler.js';
import { tokenVerifierFromEnv } from './dependencies.js';

const logger = new Logger({ serviceName: 'authorizer' });
export const handler = createAuthorizerHandler(tokenVerifierFromEnv(process.env), logger);
