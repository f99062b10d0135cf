/** Lambda entry: JWT authorizer (`jwt` auth mode) for REST and WebSocket $connect. Wiring: src/app/authorizer.ts. */
import { authorizerFunction } from '../app/authorizer.js';

export const handler = authorizerFunction(process.env);
