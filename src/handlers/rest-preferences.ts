/** Lambda entry: GET /preferences, PUT /preferences. */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClient } from '../adapters/dynamo/document-client.js';
import { preferencesApiDepsFromEnv } from './preferences-dependencies.js';
import { createPreferencesHandler } from './rest/preferences-api.js';

const logger = new Logger({ serviceName: 'preferences-api' });
export const handler = createPreferencesHandler(preferencesApiDepsFromEnv(process.env, createDocumentClient(), logger));
