/**
 * Local stand-in for AWS End User Messaging SMS (`pinpoint-sms-voice-v2`) `SendTextMessage`, spoken
 * to by the real `@aws-sdk/client-pinpoint-sms-voice-v2` (AWS JSON 1.0: `POST <http>/_aws/sms` with
 * `X-Amz-Target: PinpointSMSVoiceV2.SendTextMessage`, SigV4 service `sms-voice`), as the service does:
 *
 * - it keeps an opt-out list: a number that texted a STOP keyword (`inbound`) is on it, and a send to
 *   it answers `ConflictException` with `Reason: DESTINATION_PHONE_NUMBER_OPTED_OUT`;
 * - an inbound text is published to the inbound topic (here: the subscriber the runtime gave it, the
 *   inbound function) as the SNS message body the service writes (`originationNumber`,
 *   `destinationNumber`, `messageKeyword`, `messageBody`, `inboundMessageId`);
 * - `throttle(n)` answers the next n sends `ThrottlingException`.
 *
 * It records every text it accepts per destination number (the demo page's phone, the tests).
 * Differences from AWS: one origination identity, any `OriginationIdentity` accepted; no sandbox
 * (verified destination numbers), no per-country rules or prices; HELP is not answered with a text.
 */
import { randomUUID } from 'node:crypto';
import type { SNSEvent } from 'aws-lambda';
import * as z from 'zod';
import { E164_PATTERN } from '../../contract/channel-schemas.js';
import { inboundKeywordOf } from '../../core/channels/sms.js';
import type { LocalSqsCredentials } from '../sqs/credentials.js';
import { verifySigV4 } from '../sqs/sigv4.js';
import { isCallerOnThisMachine, type LocalRequest, type LocalResponse, type LocalRoute } from '../http/router.js';

export const LOCAL_SMS_PATH = '/_aws/sms';
/** The origination number the stand-in texts from (and that inbound texts are addressed to). */
export const LOCAL_SMS_ORIGINATION_NUMBER = '+15555550100';
/** Its identity as the local deployment's template names it (the consumer sends from this ARN, as on AWS). */
export const LOCAL_SMS_ORIGINATION_IDENTITY = 'arn:aws:sms-voice:us-east-1:000000000000:phone-number/phone-local';
const MAX_RECORDED = 1_000;
const TARGET = 'PinpointSMSVoiceV2.SendTextMessage';

const sendTextMessageSchema = z.object({
  DestinationPhoneNumber: z.string().regex(E164_PATTERN),
  OriginationIdentity: z.string().min(1).optional(),
  MessageBody: z.string().min(1).max(1_600),
  MessageType: z.enum(['TRANSACTIONAL', 'PROMOTIONAL']).optional(),
  ConfigurationSetName: z.string().optional(),
  Context: z.record(z.string(), z.string()).optional(),
});

export interface RecordedText {
  messageId: string;
  atMs: number;
  to: string;
  from: string;
  body: string;
  messageType?: string;
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

export class LocalSmsVoiceV2 {
  private readonly texts: RecordedText[] = [];
  private readonly optedOut = new Set<string>();
  private throttleNext = 0;
  /** The inbound topic's subscriber (the runtime's inbound function); without one, inbound texts only update the opt-out list. */
  onInbound: ((message: InboundSmsMessage) => Promise<void>) | undefined;

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

  /** A text from `from` to the origination number: a STOP keyword puts `from` on the opt-out list (as the service's self-managed opt-out does), then the inbound topic gets it. */
  async inbound(from: string, body: string): Promise<InboundSmsMessage> {
    if (inboundKeywordOf(body) === 'stop') this.optedOut.add(from);
    const message: InboundSmsMessage = { originationNumber: from, destinationNumber: LOCAL_SMS_ORIGINATION_NUMBER, messageKeyword: body.trim().toUpperCase().split(/\s+/)[0] ?? '', messageBody: body, inboundMessageId: randomUUID() };
    await this.onInbound?.(message);
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
    if (this.optedOut.has(to)) return smsError(400, 'ConflictException', 'The destination phone number is opted out.', { Reason: 'DESTINATION_PHONE_NUMBER_OPTED_OUT', ResourceType: 'opt-out-list', ResourceId: 'Default' });
    const text: RecordedText = { messageId: randomUUID(), atMs: Date.now(), to, from: LOCAL_SMS_ORIGINATION_NUMBER, body: parsed.data.MessageBody, ...(parsed.data.MessageType ? { messageType: parsed.data.MessageType } : {}) };
    this.texts.push(text);
    if (this.texts.length > MAX_RECORDED) this.texts.shift();
    return { status: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: JSON.stringify({ MessageId: text.messageId }) };
  }
}

/** The SNS event Lambda gets from the inbound topic for one inbound text. */
export function inboundSnsEvent(message: InboundSmsMessage): SNSEvent {
  const topicArn = 'arn:aws:sns:us-east-1:000000000000:sms-inbound';
  return {
    Records: [
      {
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: `${topicArn}:local`,
        Sns: { Type: 'Notification', MessageId: message.inboundMessageId, TopicArn: topicArn, Subject: '', Message: JSON.stringify(message), Timestamp: new Date().toISOString(), SignatureVersion: '1', Signature: '', SigningCertUrl: '', UnsubscribeUrl: '', MessageAttributes: {} },
      },
    ],
  };
}

/** An AWS JSON 1.0 error: `__type` in the body and `x-amzn-errortype`, extra members beside `Message`. */
function smsError(status: number, type: string, message: string, members: Record<string, string> = {}): LocalResponse {
  return { status, headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': type }, body: JSON.stringify({ __type: type, Message: message, ...members }) };
}

/** `POST /_aws/sms` (`SendTextMessage` only), for callers on this machine signing with the local credentials. */
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
      if (request.method !== 'POST' || target !== TARGET) return smsError(400, 'UnknownOperationException', `the local SMS stand-in serves ${TARGET} only, not ${String(target)}`);
      let input: unknown;
      try {
        input = JSON.parse(request.body.toString('utf8') || '{}');
      } catch {
        return smsError(400, 'SerializationException', 'body is not JSON');
      }
      return sms.send(input);
    },
  };
}
