/**
 * Subscriber of End User Messaging SMS's inbound topic (two-way SMS): each SNS record carries one
 * inbound text as JSON (`originationNumber`, `messageBody`, ...), acted on by the core
 * (`src/core/channels/sms-inbound.ts`: STOP, START / UNSTOP / YES, HELP). A record from another topic
 * than the configured one, one over the size the service publishes, or one that does not parse is
 * logged at WARN and dropped (an SNS subscription retries only failed invocations, and a malformed
 * message never parses later); a store or service failure throws, so the invocation is retried.
 * The texting number and the body are never logged.
 */
import type { SNSEvent } from 'aws-lambda';
import * as z from 'zod';
import { e164Schema } from '../contract/channel-schemas.js';
import { actOnInboundText, type SmsInboundDeps } from '../core/channels/sms-inbound.js';

/** The service's inbound payload is a few hundred bytes; a concatenated text is at most about 1,600 characters. */
export const MAX_INBOUND_MESSAGE_CHARACTERS = 8_192;

/** The fields of the service's inbound message this handler reads (it carries more: they are dropped). */
const inboundMessageSchema = z.object({
  originationNumber: e164Schema,
  messageBody: z.string().max(4_096),
});

export interface SmsInboundHandlerDeps extends SmsInboundDeps {
  /** The construct's inbound topic: records of any other topic are refused. */
  inboundTopicArn: string;
}

export function createSmsInboundHandler(deps: SmsInboundHandlerDeps) {
  return async (event: SNSEvent): Promise<void> => {
    for (const record of event.Records) {
      const messageId = typeof record.Sns?.MessageId === 'string' ? record.Sns.MessageId.slice(0, 128) : 'unknown';
      if (record.EventSource !== 'aws:sns' || record.Sns?.TopicArn !== deps.inboundTopicArn) {
        deps.onEvent('warn', 'inbound SMS record not from the inbound topic: dropped', { messageId, topicArn: String(record.Sns?.TopicArn).slice(0, 256) });
        continue;
      }
      const message = record.Sns.Message;
      if (typeof message !== 'string' || message.length > MAX_INBOUND_MESSAGE_CHARACTERS) {
        deps.onEvent('warn', 'inbound SMS message over the size the service publishes: dropped', { messageId, characters: typeof message === 'string' ? message.length : 0 });
        continue;
      }
      let body: unknown;
      try {
        body = JSON.parse(message);
      } catch {
        deps.onEvent('warn', 'inbound SMS message is not JSON: dropped', { messageId });
        continue;
      }
      const parsed = inboundMessageSchema.safeParse(body);
      if (!parsed.success) {
        deps.onEvent('warn', 'inbound SMS message of an unknown shape: dropped', { messageId, reason: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.code}`).join('; ') });
        continue;
      }
      // When the service published it: the order of a number's STOP and START (SNS does not keep it).
      const publishedMs = Date.parse(record.Sns.Timestamp);
      const atMs = Number.isFinite(publishedMs) ? publishedMs : deps.clock.nowMs();
      await actOnInboundText(deps, { from: parsed.data.originationNumber, body: parsed.data.messageBody, atMs, messageId });
    }
  };
}
