/** Lambda entry: the audit backlog's drainer (deployed with the audit trail). Wiring: src/app/audit/drain.ts. */
import { auditDrainFunction } from '../app/audit/drain.js';

export const handler = auditDrainFunction(process.env);
