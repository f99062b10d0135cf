/**
 * Subscriber of End User Messaging SMS's inbound topic (two-way SMS): each SNS record carries one
 * inbound text as JSON (`originationNumber`, `messageBody`, ...). A STOP keyword (STOP, UNSUBSCRIBE,
 * CANCEL, ...) puts the number on the opt-out list the SMS consumer reads before every text, at
 * once; HELP is logged (the service answers it with the keyword response configured on the
 * number); anything else is ignored. A record that does not parse is logged and dropped: an SNS
 * subscription retries only delivery failures, and a malformed message never parses later.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SNSEvent } from 'aws-lambda';
import * as z from 'zod';
import { e164Schema } from '../contract/channel-schemas.js';
import type { SmsOptOutList } from '../core/channels/ports.js';
import { inboundKeywordOf } from '../core/channels/sms.js';
import type { Clock } from '../core/ports/clock.js';

/** The fields of the service's inbound message this handler reads (it carries more). */
const inboundMessageSchema = z.object({
  originationNumber: e164Schema,
  messageBody: z.string().max(1_600),
});

export interface SmsInboundDeps {
  optOuts: SmsOptOutList;
  logger: Logger;
  clock: Clock;
}

export function createSmsInboundHandler(deps: SmsInboundDeps) {
  return async (event: SNSEvent): Promise<void> => {
    for (const record of event.Records) {
      let body: unknown;
      try {
        body = JSON.parse(record.Sns.Message);
      } catch {
        deps.logger.warn('inbound SMS message is not JSON: dropped', { messageId: record.Sns.MessageId });
        continue;
      }
      const parsed = inboundMessageSchema.safeParse(body);
      if (!parsed.success) {
        deps.logger.warn('inbound SMS message of an unknown shape: dropped', { messageId: record.Sns.MessageId, reason: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') });
        continue;
      }
      const keyword = inboundKeywordOf(parsed.data.messageBody);
      if (keyword === 'stop') {
        // Throws on a store failure: the invocation fails and SNS retries it (an opt-out is never lost).
        await deps.optOuts.optOut(parsed.data.originationNumber, new Date(deps.clock.nowMs()).toISOString(), 'inbound_stop');
        deps.logger.info('SMS opt-out recorded (STOP): no more texts to this number', { messageId: record.Sns.MessageId });
      } else if (keyword === 'help') deps.logger.info('SMS HELP received (the service answers with its keyword response)', { messageId: record.Sns.MessageId });
    }
  };
}
