/** Moved to src/local/eventbridge/put-events.ts; this path stays for the wiring (pipeline.ts). */
export * from './eventbridge/put-events.js';
