/** Lambda entry: fan-out consumer of one notification type's intake queue (`NOTIFICATION_TYPE`). Wiring: src/app/fan-out.ts. */
import { fanOutFunction } from '../app/fan-out.js';

export const handler = fanOutFunction(process.env);
