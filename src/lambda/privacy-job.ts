/** Lambda entry: the erase and export job (privacy job queue: `user.erased`, `user.export.requested`, operator messages). Wiring: src/app/privacy-jobs.ts. */
import { privacyJobFunction } from '../app/privacy-jobs.js';

export const handler = privacyJobFunction(process.env);
