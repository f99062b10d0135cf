/** Moved to src/local/apigateway/websocket-gateway.ts; this path stays for the wiring (live-delivery.ts). */
export * from './apigateway/websocket-gateway.js';
