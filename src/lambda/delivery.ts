/** Lambda entry: delivery consumer of one priority queue (`DELIVERY_MODE=urgent|info`). Wiring: src/app/delivery.ts. */
import { deliveryFunction } from '../app/delivery.js';

export const handler = deliveryFunction(process.env);
