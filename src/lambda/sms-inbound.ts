/** Lambda entry: the SMS inbound topic's subscriber (STOP opts the number out). Wiring: src/app/sms.ts. */
import { smsInboundFunction } from '../app/sms.js';

export const handler = smsInboundFunction(process.env);
