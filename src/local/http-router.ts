/** Moved to src/local/http/router.ts; this path stays for the wiring (runtime.ts, demo-page.ts). */
export * from './http/router.js';
