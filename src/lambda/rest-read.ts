/** Lambda entry: GET /notifications, GET /notifications/counts. Wiring: src/app/inbox-read.ts. */
import { inboxReadFunction } from '../app/inbox-read.js';

export const handler = inboxReadFunction(process.env);
