/** Lambda entry: POST /notifications/read-all, /seen-all, /{id}/read. Wiring: src/app/inbox-write.ts. */
import { inboxWriteFunction } from '../app/inbox-write.js';

export const handler = inboxWriteFunction(process.env);
