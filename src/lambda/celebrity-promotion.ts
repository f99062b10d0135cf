/** Lambda entry: the paged background pass run when an account enters the celebrity tier. Wiring: src/app/promotion.ts. */
import { promotionFunction } from '../app/promotion.js';

export const handler = promotionFunction(process.env);
