/**
 * The SMS channel (AWS End User Messaging SMS, `SendTextMessage`): a user opts in explicitly
 * (`PUT /sms`) with the phone number their identity provider verified (the token's `phone_number` +
 * `phone_number_verified` claims: never a number from a request body), and gets texts of the types
 * that offer SMS and that they switched on. Before every text the consumer checks, in this order:
 * the opt-in, the opt-out list (the number's latest word on the service's inbound topic, STOP or
 * START, or the service's own opt-out answer), and the spend guards (texts per user per day and in all per day, counted before
 * the send: a guard that cannot be read sends nothing). An opted-out answer from the service is
 * recorded and never retried. The inbound keywords and their answers are below; what a text does:
 * `sms-inbound.ts` (docs/channels.md#stop-start-and-help).
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

/**
 * Keywords, case-insensitive. Opt-out: the service's required list (ARRET ... UNSUBSCRIBE) and the
 * carriers' STOPALL and REVOKE; opt-in: START and UNSTOP (the service's documented opt-in keywords of
 * toll-free numbers) and YES (the carriers' re-subscribe word); help: HELP, INFO, AIDE.
 */
const STOP_KEYWORDS = new Set(['ARRET', 'CANCEL', 'END', 'OPT-OUT', 'OPTOUT', 'QUIT', 'REMOVE', 'STOP', 'STOPALL', 'TD', 'UNSUBSCRIBE', 'REVOKE']);
const START_KEYWORDS = new Set(['START', 'UNSTOP', 'YES']);
const HELP_KEYWORDS = new Set(['HELP', 'INFO', 'AIDE']);
/** Only a message's start is ever read (a keyword is a word): a huge body costs nothing more. */
const KEYWORD_SCAN_CHARACTERS = 64;

export type InboundKeyword = 'stop' | 'start' | 'help' | 'other';

/** A message's words, upper-cased, without surrounding punctuation ("Stop." -> STOP). */
function wordsOf(messageBody: string): string[] {
  return messageBody
    .slice(0, KEYWORD_SCAN_CHARACTERS)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .trim()
    .toUpperCase()
    .split(/\s+/)
    .map((word) => word.replace(/^[^A-Z0-9]+|[^A-Z0-9]+$/g, ''))
    .filter((word) => word.length > 0);
}

/**
 * What an inbound text asks for. A message that BEGINS with an opt-out or help keyword is one (as the
 * service reads keywords: "STOP please" opts out; erring towards not texting), while opting back in
 * takes the keyword alone ("yes, stop" must never re-subscribe a number). Anything else: `other`.
 */
export function inboundKeywordOf(messageBody: string): InboundKeyword {
  const words = wordsOf(messageBody);
  const first = words[0] ?? '';
  if (STOP_KEYWORDS.has(first)) return 'stop';
  const alone = words.length === 1 && messageBody.trim().length < KEYWORD_SCAN_CHARACTERS;
  if (alone && START_KEYWORDS.has(first)) return 'start';
  if (HELP_KEYWORDS.has(first)) return 'help';
  return 'other';
}

/**
 * What the number answers to HELP, STOP and START when opt-outs are self-managed (on a number with
 * the service's automatic handling the service answers with its keyword responses). Carriers want
 * the HELP answer to say who sends and how to reach support: set your own (construct `answers`).
 */
export interface SmsKeywordAnswers {
  help: string;
  stop: string;
  start: string;
}

export const SMS_KEYWORD_ANSWERS_DEFAULT: SmsKeywordAnswers = {
  help: 'Notification texts. Reply STOP to stop them, START to get them again. Msg & data rates may apply.',
  stop: 'You will get no more notification texts. Reply START to get them again.',
  start: 'Notification texts are back on. Reply STOP to stop them, HELP for help.',
};

/** How long an opted-in record outlives the START that wrote it: an older STOP delivered late (SNS does not keep order) still loses to it. */
export const SMS_OPTED_IN_RETENTION_SECONDS = 30 * 86_400;
