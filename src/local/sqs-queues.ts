/** Split into src/local/sqs/ (queue store, event-source mapping, SQS protocol, journal, registry); this path stays for the wiring (pipeline.ts). */
export * from './sqs/index.js';
