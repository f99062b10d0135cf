/** Lambda entry: WebSocket $connect (authorized by the REQUEST authorizer on the `token` query parameter). Wiring: src/app/ws-connect.ts. */
import { wsConnectFunction } from '../app/ws-connect.js';

export const handler = wsConnectFunction(process.env);
