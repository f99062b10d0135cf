/**
 * SmsProvider on AWS End User Messaging SMS (the service that replaced Pinpoint's SMS): one
 * `SendTextMessage` per text from the configured origination identity (a phone number, sender id
 * or pool ARN), TRANSACTIONAL. The service's answers mapped for the consumer: the number on its
 * opt-out list (`ConflictException`, `DESTINATION_PHONE_NUMBER_OPTED_OUT`) is `opted_out`, never
 * retried; throttling, quota and 5xx are `throttled` (SQS retries after the backoff); any other
 * client error (validation, access, unknown identity) is a final `rejected`.
 */
import { ConflictException, SendTextMessageCommand, type PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { SmsOutcome, SmsProvider } from '../../core/channels/ports.js';

const RETRYABLE = new Set(['ThrottlingException', 'ServiceQuotaExceededException', 'InternalServerException']);

export interface EndUserMessagingSmsOptions {
  /** The phone number, sender id, pool or their ARN the texts go out from. */
  originationIdentity: string;
  configurationSetName?: string;
}

export class EndUserMessagingSmsProvider implements SmsProvider {
  constructor(
    private readonly client: PinpointSMSVoiceV2Client,
    private readonly options: EndUserMessagingSmsOptions,
  ) {}

  async send(message: { to: string; text: string }): Promise<SmsOutcome> {
    try {
      const answer = await this.client.send(
        new SendTextMessageCommand({
          DestinationPhoneNumber: message.to,
          OriginationIdentity: this.options.originationIdentity,
          MessageBody: message.text,
          MessageType: 'TRANSACTIONAL',
          ...(this.options.configurationSetName ? { ConfigurationSetName: this.options.configurationSetName } : {}),
        }),
      );
      return { status: 'sent', messageId: answer.MessageId ?? '' };
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      const reason = `${name}: ${(error as Error).message}`;
      if (error instanceof ConflictException && error.Reason === 'DESTINATION_PHONE_NUMBER_OPTED_OUT') return { status: 'opted_out', reason };
      const fault = (error as { $fault?: string }).$fault;
      if (RETRYABLE.has(name) || fault === 'server' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === undefined) return { status: 'throttled', reason };
      return { status: 'rejected', reason };
    }
  }
}
