/** Moved to src/local/scheduler/local-scheduler.ts; this path stays for the wiring (runtime.ts). */
export * from './scheduler/local-scheduler.js';
