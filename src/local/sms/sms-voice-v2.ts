/**
 * Local stand-in for AWS End User Messaging SMS (`pinpoint-sms-voice-v2`), spoken to by the real
 * `@aws-sdk/client-pinpoint-sms-voice-v2` (AWS JSON 1.0: `POST <http>/_aws/sms` with
 * `X-Amz-Target: PinpointSMSVoiceV2.<Operation>`, SigV4 service `sms-voice`): `SendTextMessage` and
 * `DeleteOptedOutNumber`, as the service does:
 *
 * - it keeps the number's opt-out list (`Default`). With the service's automatic keyword handling
 *   (the default), a text that begins with a required opt-out keyword (STOP, CANCEL, END, QUIT, ...)
 *   puts the sender on it and one that begins with an opt-in keyword of the number (START, UNSTOP:
 *   keywords with the OPT_IN action, as the service documents for toll-free numbers; YES is not one)
 *   takes it off, and the service answers HELP, the opt-out and the opt-in keywords with the number's
 *   keyword responses. With self-managed opt-outs it does none of that (the inbound function does);
 * - a send to a listed number answers `ConflictException` with `Reason: DESTINATION_PHONE_NUMBER_OPTED_OUT`;
 * - `DeleteOptedOutNumber` removes a listed number, once every 30 days per number (again sooner:
 *   `ValidationException`, `Reason: PHONE_NUMBER_CANNOT_BE_OPTED_IN`, our reading of that rule); an
 *   unlisted number or an unknown list is `ResourceNotFoundException`;
 * - an inbound text is published to the inbound topic (here: the subscriber the runtime gave it, the
 *   inbound function) as the SNS message body the service writes (`originationNumber`,
 *   `destinationNumber`, `messageKeyword`, `messageBody`, `inboundMessageId`);
 * - `throttle(n)` answers the next n sends `ThrottlingException`.
 *
 * It records every text it accepts, keyword responses included, per destination number (the demo
 * page's phone, the tests). Differences from AWS: one origination identity, any `OriginationIdentity`
 * accepted; one opt-out list; no sandbox (verified destination numbers), no per-country rules or prices.
 */
import { randomUUID } from 'node:crypto';
import type { SNSEvent } from 'aws-lambda';
import * as z from 'zod';
import { E164_PATTERN } from '../../contract/channel-schemas.js';
import { SMS_KEYWORD_ANSWERS_DEFAULT, type SmsKeywordAnswers } from '../../core/channels/sms.js';
import type { LocalSqsCredentials } from '../sqs/credentials.js';
import { verifySigV4 } from '../sqs/sigv4.js';
import { isCallerOnThisMachine, type LocalRequest, type LocalResponse, type LocalRoute } from '../http/router.js';

export const LOCAL_SMS_PATH = '/_aws/sms';
/** The origination number the stand-in texts from (and that inbound texts are addressed to). */
export const LOCAL_SMS_ORIGINATION_NUMBER = '+15555550100';
/** Its identity as the local deployment's template names it (the consumer sends from this ARN, as on AWS). */
export const LOCAL_SMS_ORIGINATION_IDENTITY = 'arn:aws:sms-voice:us-east-1:000000000000:phone-number/phone-local';
/** The inbound topic of the local deployment (the two-way channel of the origination number publishes there). */
export const LOCAL_SMS_INBOUND_TOPIC_ARN = 'arn:aws:sns:us-east-1:000000000000:sms-inbound';
export const LOCAL_SMS_OPT_OUT_LIST = 'Default';
const LOCAL_SMS_OPT_OUT_LIST_ARN = `arn:aws:sms-voice:us-east-1:000000000000:opt-out-list/${LOCAL_SMS_OPT_OUT_LIST}`;
const MAX_RECORDED = 1_000;
const TARGETS = { send: 'PinpointSMSVoiceV2.SendTextMessage', deleteOptedOut: 'PinpointSMSVoiceV2.DeleteOptedOutNumber' } as const;
/** The service removes a number from an opt-out list once every 30 days. */
const DELETE_OPTED_OUT_INTERVAL_MS = 30 * 86_400_000;
/** The service's required opt-out keywords (its user guide); STOPALL and REVOKE are not among them. */
const SERVICE_OPT_OUT_KEYWORDS = new Set(['ARRET', 'CANCEL', 'END', 'OPT-OUT', 'OPTOUT', 'QUIT', 'REMOVE', 'STOP', 'TD', 'UNSUBSCRIBE']);

const sendTextMessageSchema = z.object({
  DestinationPhoneNumber: z.string().regex(E164_PATTERN),
  OriginationIdentity: z.string().min(1).optional(),
  MessageBody: z.string().min(1).max(1_600),
  MessageType: z.enum(['TRANSACTIONAL', 'PROMOTIONAL']).optional(),
  ConfigurationSetName: z.string().optional(),
  Context: z.record(z.string(), z.string()).optional(),
});

const deleteOptedOutNumberSchema = z.object({ OptOutListName: z.string().min(1).max(256), OptedOutNumber: z.string().regex(E164_PATTERN) });

export interface RecordedText {
  messageId: string;
  atMs: number;
  to: string;
  from: string;
  body: string;
  messageType?: string;
  /** The service's own answer to a keyword (HELP, an opt-out or an opt-in keyword), not a SendTextMessage. */
  keywordResponse?: true;
}

/** What the service publishes to the inbound SNS topic for one inbound text (its SNS `Message`). */
export interface InboundSmsMessage {
  originationNumber: string;
  destinationNumber: string;
  messageKeyword: string;
  messageBody: string;
  inboundMessageId: string;
  previousPublishedMessageId?: string;
}

export interface LocalSmsOptions {
  /** The number's opt-outs are self-managed: the service neither lists nor answers keywords. Default false (the service's default). */
  selfManagedOptOuts?: boolean;
  /** The number's keyword responses (HELP, opt-out, opt-in). Default: the construct's default answers. */
  keywordResponses?: SmsKeywordAnswers;
  /** The number's keywords with the OPT_IN action. Default START and UNSTOP. */
  optInKeywords?: readonly string[];
  nowMs?: () => number;
}

export class LocalSmsVoiceV2 {
  private readonly texts: RecordedText[] = [];
  /** The `Default` opt-out list: number -> when it was listed and whether the end user asked. */
  private readonly optedOut = new Map<string, { atMs: number; endUserOptedOut: boolean }>();
  /** When DeleteOptedOutNumber last removed a number. */
  private readonly deletedAt = new Map<string, number>();
  private throttleNext = 0;
  private readonly optInKeywords: ReadonlySet<string>;
  private readonly now: () => number;
  /** The inbound topic's subscriber (the runtime's inbound function); without one, inbound texts only update the opt-out list. */
  onInbound: ((message: InboundSmsMessage, publishedAtMs: number) => Promise<void>) | undefined;

  constructor(private readonly options: LocalSmsOptions = {}) {
    this.optInKeywords = new Set(options.optInKeywords ?? ['START', 'UNSTOP']);
    this.now = options.nowMs ?? Date.now;
  }

  /** Every accepted text, oldest first. */
  outbox(): RecordedText[] {
    return [...this.texts];
  }

  /** Texts sent to one number. */
  textsTo(phoneNumber: string): RecordedText[] {
    return this.texts.filter((text) => text.to === phoneNumber);
  }

  isOptedOut(phoneNumber: string): boolean {
    return this.optedOut.has(phoneNumber);
  }

  throttle(count: number): void {
    this.throttleNext = count;
  }

  /**
   * A text from `from` to the origination number: the service acts on a keyword it begins with
   * (unless opt-outs are self-managed), then the inbound topic gets it.
   */
  async inbound(from: string, body: string): Promise<InboundSmsMessage> {
    const keyword = body.trim().toUpperCase().split(/\s+/)[0]?.replace(/[^A-Z0-9-]+$/, '') ?? '';
    if (!this.options.selfManagedOptOuts) {
      const responses = this.options.keywordResponses ?? SMS_KEYWORD_ANSWERS_DEFAULT;
      if (SERVICE_OPT_OUT_KEYWORDS.has(keyword)) {
        this.optedOut.set(from, { atMs: this.now(), endUserOptedOut: true });
        this.record(from, responses.stop, true);
      } else if (this.optInKeywords.has(keyword)) {
        this.optedOut.delete(from);
        this.record(from, responses.start, true);
      } else if (keyword === 'HELP') this.record(from, responses.help, true);
    }
    const message: InboundSmsMessage = { originationNumber: from, destinationNumber: LOCAL_SMS_ORIGINATION_NUMBER, messageKeyword: keyword, messageBody: body, inboundMessageId: randomUUID() };
    await this.onInbound?.(message, this.now());
    return message;
  }

  send(input: unknown): LocalResponse {
    if (this.throttleNext > 0) {
      this.throttleNext -= 1;
      return smsError(400, 'ThrottlingException', 'Rate exceeded.');
    }
    const parsed = sendTextMessageSchema.safeParse(input);
    if (!parsed.success) return smsError(400, 'ValidationException', parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    const to = parsed.data.DestinationPhoneNumber;
    if (this.optedOut.has(to)) return smsError(400, 'ConflictException', 'The destination phone number is opted out.', { Reason: 'DESTINATION_PHONE_NUMBER_OPTED_OUT', ResourceType: 'opt-out-list', ResourceId: LOCAL_SMS_OPT_OUT_LIST });
    const text = this.record(to, parsed.data.MessageBody, false, parsed.data.MessageType);
    return { status: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: JSON.stringify({ MessageId: text.messageId }) };
  }

  /** `DeleteOptedOutNumber` on the `Default` list (by name or ARN). */
  deleteOptedOutNumber(input: unknown): LocalResponse {
    const parsed = deleteOptedOutNumberSchema.safeParse(input);
    if (!parsed.success) return smsError(400, 'ValidationException', parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '), { Reason: 'FIELD_VALIDATION_FAILED' });
    const { OptOutListName: list, OptedOutNumber: number } = parsed.data;
    if (list !== LOCAL_SMS_OPT_OUT_LIST && list !== LOCAL_SMS_OPT_OUT_LIST_ARN) return smsError(400, 'ResourceNotFoundException', `Opt-out list ${list} not found.`, { ResourceType: 'opt-out-list', ResourceId: list });
    const listed = this.optedOut.get(number);
    if (!listed) return smsError(400, 'ResourceNotFoundException', 'The opted out number was not found.', { ResourceType: 'opted-out-number', ResourceId: number });
    const last = this.deletedAt.get(number);
    if (last !== undefined && this.now() - last < DELETE_OPTED_OUT_INTERVAL_MS) return smsError(400, 'ValidationException', 'A phone number can be removed from an opt-out list once every 30 days.', { Reason: 'PHONE_NUMBER_CANNOT_BE_OPTED_IN' });
    this.optedOut.delete(number);
    this.deletedAt.set(number, this.now());
    return {
      status: 200,
      headers: { 'content-type': 'application/x-amz-json-1.0' },
      body: JSON.stringify({ OptOutListArn: LOCAL_SMS_OPT_OUT_LIST_ARN, OptOutListName: LOCAL_SMS_OPT_OUT_LIST, OptedOutNumber: number, OptedOutTimestamp: listed.atMs / 1000, EndUserOptedOut: listed.endUserOptedOut }),
    };
  }

  private record(to: string, body: string, keywordResponse: boolean, messageType?: string): RecordedText {
    const text: RecordedText = { messageId: randomUUID(), atMs: this.now(), to, from: LOCAL_SMS_ORIGINATION_NUMBER, body, ...(messageType ? { messageType } : {}), ...(keywordResponse ? { keywordResponse: true as const } : {}) };
    this.texts.push(text);
    if (this.texts.length > MAX_RECORDED) this.texts.shift();
    return text;
  }
}

/** The SNS event Lambda gets from the inbound topic for one inbound text. */
export function inboundSnsEvent(message: InboundSmsMessage, publishedAtMs: number): SNSEvent {
  const topicArn = LOCAL_SMS_INBOUND_TOPIC_ARN;
  return {
    Records: [
      {
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: `${topicArn}:local`,
        Sns: { Type: 'Notification', MessageId: message.inboundMessageId, TopicArn: topicArn, Subject: '', Message: JSON.stringify(message), Timestamp: new Date(publishedAtMs).toISOString(), SignatureVersion: '1', Signature: '', SigningCertUrl: '', UnsubscribeUrl: '', MessageAttributes: {} },
      },
    ],
  };
}

/** An AWS JSON 1.0 error: `__type` in the body and `x-amzn-errortype`, extra members beside `Message`. */
function smsError(status: number, type: string, message: string, members: Record<string, string> = {}): LocalResponse {
  return { status, headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': type }, body: JSON.stringify({ __type: type, Message: message, ...members }) };
}

/** `POST /_aws/sms` (`SendTextMessage`, `DeleteOptedOutNumber`), for callers on this machine signing with the local credentials. */
export function createLocalSmsRoute(sms: LocalSmsVoiceV2, options: { credentials?: LocalSqsCredentials; serverHost: string }): LocalRoute {
  return {
    async handle(request: LocalRequest) {
      if (request.url.pathname !== LOCAL_SMS_PATH && !request.url.pathname.startsWith(`${LOCAL_SMS_PATH}/`)) return undefined;
      if (!isCallerOnThisMachine(request, options.serverHost)) return smsError(403, 'AccessDeniedException', 'the local SMS endpoint answers callers on this machine only');
      if (options.credentials) {
        const failure = await verifySigV4(request, options.credentials, 'sms-voice');
        if (failure) return smsError(403, failure.code, failure.message);
      }
      const target = request.headers['x-amz-target'];
      if (request.method !== 'POST' || (target !== TARGETS.send && target !== TARGETS.deleteOptedOut)) return smsError(400, 'UnknownOperationException', `the local SMS stand-in serves ${Object.values(TARGETS).join(' and ')} only, not ${String(target)}`);
      let input: unknown;
      try {
        input = JSON.parse(request.body.toString('utf8') || '{}');
      } catch {
        return smsError(400, 'SerializationException', 'body is not JSON');
      }
      return target === TARGETS.send ? sms.send(input) : sms.deleteOptedOutNumber(input);
    },
  };
}
