/** Moved to src/local/apigateway/rest-gateway.ts; this path stays for the wiring (runtime.ts). */
export * from './apigateway/rest-gateway.js';
