/** Lambda entry: the SMS inbound topic's subscriber (STOP opts the number out, START / UNSTOP / YES back in, HELP answered). Wiring: src/app/sms.ts. */
import { smsInboundFunction } from '../app/sms.js';

export const handler = smsInboundFunction(process.env);
