/**
 * What an inbound text does (two-way SMS of the origination number, read from the service's inbound
 * topic), whatever order SNS delivers texts in and however often:
 *
 * - an opt-out keyword (STOP ...) puts the number on the opt-out list at once;
 * - an opt-in keyword alone (START, UNSTOP, YES) takes it off: first off the SERVICE's opt-out list
 *   (`DeleteOptedOutNumber`: a number whose opt-in keyword the service knows is already off it, one
 *   it does not know is removed now), then off ours; if the service refuses (it removes a number
 *   once every 30 days) the number stays opted out on both, with a WARN;
 * - HELP is answered.
 *
 * Each change carries the instant the service published the text: an older one than the number's
 * recorded state changes nothing (`stale`), so a STOP sent after a START wins even when it arrives
 * first. Answers: with the service's automatic keyword handling (the default) the service answers
 * HELP, STOP and START itself and nothing is sent here; with self-managed opt-outs this answers,
 * once per number, keyword and day, counted in the day's texts in all.
 */
import type { SmsAnswerGuard, SmsOptOutList, SmsProvider, SmsServiceOptOuts } from './ports.js';
import { inboundKeywordOf, smsDayStartMs, type InboundKeyword, type SmsKeywordAnswers } from './sms.js';

export interface InboundText {
  /** The texting phone (E.164). */
  from: string;
  body: string;
  /** When the service published it (SNS `Timestamp`). */
  atMs: number;
  /** For logs: the inbound message id (the number and the body are never logged). */
  messageId: string;
}

export interface SmsInboundDeps {
  optOuts: SmsOptOutList;
  serviceOptOuts: SmsServiceOptOuts;
  /** Self-managed opt-outs: the answers are sent from here. Unset: the service answers keywords. */
  answers?: { provider: SmsProvider; guard: SmsAnswerGuard; texts: SmsKeywordAnswers; perDay: number };
  clock: { nowMs(): number };
  onEvent(level: 'info' | 'warn', message: string, fields: Record<string, unknown>): void;
}

export type InboundOutcome = { keyword: InboundKeyword; change: 'opted_out' | 'opted_in' | 'stale' | 'refused' | 'none'; answer: 'sent' | 'service' | 'already_answered' | 'global_limit' | 'failed' | 'none' };

export async function actOnInboundText(deps: SmsInboundDeps, text: InboundText): Promise<InboundOutcome> {
  const keyword = inboundKeywordOf(text.body);
  const log = { messageId: text.messageId, keyword };
  if (keyword === 'other') return { keyword, change: 'none', answer: 'none' };
  let change: InboundOutcome['change'] = 'none';
  if (keyword === 'stop') {
    // Throws on a store failure: the invocation fails and is retried (an opt-out is never lost).
    change = (await deps.optOuts.optOut(text.from, text.atMs, 'inbound_stop')) === 'recorded' ? 'opted_out' : 'stale';
    deps.onEvent('info', change === 'opted_out' ? 'SMS opt-out recorded (STOP): no more texts to this number' : 'SMS STOP older than the number\'s recorded state: nothing changed', log);
  } else if (keyword === 'start') {
    change = await optIn(deps, text, log);
  }
  if (change === 'stale' || change === 'refused') return { keyword, change, answer: 'none' };
  return { keyword, change, answer: await answer(deps, text, keyword, log) };
}

/** START: unless a later word is recorded, off the service's list first (so no send is refused for it), then off ours. */
async function optIn(deps: SmsInboundDeps, text: InboundText, log: Record<string, unknown>): Promise<InboundOutcome['change']> {
  const recorded = await deps.optOuts.stateOf(text.from);
  if (recorded?.changedAtMs !== undefined && recorded.changedAtMs >= text.atMs) {
    deps.onEvent('info', 'SMS START older than the number\'s recorded state: nothing changed', log);
    return 'stale';
  }
  const service = await deps.serviceOptOuts.optIn(text.from);
  if (service.status === 'refused') {
    deps.onEvent('warn', 'SMS START: the service keeps the number on its opt-out list (it removes a number once every 30 days); still opted out here too', { ...log, reason: service.reason });
    return 'refused';
  }
  const change = (await deps.optOuts.optIn(text.from, text.atMs)) === 'recorded' ? 'opted_in' : 'stale';
  deps.onEvent('info', change === 'opted_in' ? 'SMS opt-in recorded (START): the number may be texted again' : 'SMS START overtaken by a later STOP: still opted out', { ...log, service: service.status });
  return change;
}

async function answer(deps: SmsInboundDeps, text: InboundText, keyword: Exclude<InboundKeyword, 'other'>, log: Record<string, unknown>): Promise<InboundOutcome['answer']> {
  const answers = deps.answers;
  if (!answers) return 'service';
  const day = smsDayStartMs(deps.clock.nowMs());
  const admitted = await answers.guard.admitAnswer(text.from, keyword, day, answers.perDay);
  if (admitted !== 'admitted') {
    if (admitted === 'global_limit') deps.onEvent('warn', 'SMS keyword answer not sent: the day\'s texts in all are at the spend limit', log);
    return admitted;
  }
  const outcome = await answers.provider.send({ to: text.from, text: answers.texts[keyword] });
  if (outcome.status === 'sent') return 'sent';
  if (outcome.status === 'throttled') {
    // Given back and retried with the record (the opt-out change above is done and idempotent).
    await answers.guard.releaseAnswer(text.from, keyword, day);
    throw new Error(`SMS keyword answer throttled: ${outcome.reason}`);
  }
  deps.onEvent('warn', 'SMS keyword answer refused by the service; not retried', { ...log, reason: outcome.reason });
  return 'failed';
}
