/** Lambda entry: WebSocket $default route (`{"action":"ping"}` -> `{"type":"pong"}`). Wiring: src/app/ws-default.ts. */
import { wsDefaultFunction } from '../app/ws-default.js';

export const handler = wsDefaultFunction(process.env);
