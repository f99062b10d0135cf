/** Lambda entry: WebSocket $disconnect. Wiring: src/app/ws-disconnect.ts. */
import { wsDisconnectFunction } from '../app/ws-disconnect.js';

export const handler = wsDisconnectFunction(process.env);
