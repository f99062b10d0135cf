/**
 * The SMS channel (AWS End User Messaging SMS, `SendTextMessage`): a user opts in explicitly
 * (`PUT /sms`) with the phone number their identity provider verified (the token's `phone_number` +
 * `phone_number_verified` claims: never a number from a request body), and gets texts of the types
 * that offer SMS and that they switched on. Before every text the consumer checks, in this order:
 * the opt-in, the opt-out list (a STOP the service's inbound topic reported, or the service's own
 * opt-out answer), and the spend guards (texts per user per day and in all per day, counted before
 * the send: a guard that cannot be read sends nothing). An opted-out answer from the service is
 * recorded and never retried (docs/channels.md#sms).
 */
/** What `PUT /sms` records: the verified number and the consent text version, when. */
export interface SmsOptIn {
  phoneNumber: string;
  optedInAt: string;
  version: string;
}

/** Texts per user per UTC day and in all per UTC day (every tenant: one origination identity pays for all). */
export interface SmsSpendLimits {
  perUserPerDay: number;
  perDay: number;
}

export const SMS_DAILY_LIMIT_PER_USER_DEFAULT = 10;
export const SMS_DAILY_LIMIT_DEFAULT = 10_000;

/** The UTC day an instant falls in (the spend guards' window). */
export function smsDayStartMs(nowMs: number): number {
  return nowMs - (nowMs % 86_400_000);
}

/** Keywords carriers and the service treat as opt-out / help (case-insensitive, the whole message). */
const STOP_KEYWORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'OPT-OUT', 'REVOKE', 'ARRET']);
const HELP_KEYWORDS = new Set(['HELP', 'INFO', 'AIDE']);

/** What an inbound text asks for: `stop` (opt out), `help`, or nothing we act on. */
export function inboundKeywordOf(messageBody: string): 'stop' | 'help' | 'other' {
  const word = messageBody.trim().toUpperCase();
  if (STOP_KEYWORDS.has(word)) return 'stop';
  if (HELP_KEYWORDS.has(word)) return 'help';
  return 'other';
}
