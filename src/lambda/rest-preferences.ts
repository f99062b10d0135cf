/** Lambda entry: GET /preferences, PUT /preferences. Wiring: src/app/preferences.ts. */
import { preferencesFunction } from '../app/preferences.js';

export const handler = preferencesFunction(process.env);
