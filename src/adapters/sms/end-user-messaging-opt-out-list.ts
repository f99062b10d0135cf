/**
 * SmsServiceOptOuts on AWS End User Messaging SMS: `DeleteOptedOutNumber` on the opt-out list the
 * origination identity uses (`Default` unless you gave it another). The service's answers: the number
 * or the list not found is `not_listed` (an opt-in keyword the number knows removed it already);
 * throttling, quota and server errors throw (the inbound record is retried); any other client error
 * (it removes a number once every 30 days; access) is `refused`.
 */
import { DeleteOptedOutNumberCommand, ResourceNotFoundException, type PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { SmsServiceOptOuts } from '../../core/channels/ports.js';

const RETRYABLE = new Set(['ThrottlingException', 'ServiceQuotaExceededException', 'InternalServerException']);

export class EndUserMessagingOptOutList implements SmsServiceOptOuts {
  constructor(
    private readonly client: PinpointSMSVoiceV2Client,
    private readonly optOutListName: string,
  ) {}

  async optIn(phoneNumber: string): Promise<{ status: 'opted_in' | 'not_listed' } | { status: 'refused'; reason: string }> {
    try {
      await this.client.send(new DeleteOptedOutNumberCommand({ OptOutListName: this.optOutListName, OptedOutNumber: phoneNumber }));
      return { status: 'opted_in' };
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return { status: 'not_listed' };
      const name = (error as { name?: string }).name ?? '';
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (RETRYABLE.has(name) || (error as { $fault?: string }).$fault === 'server' || status === undefined) throw error;
      const reason = (error as { Reason?: string }).Reason;
      return { status: 'refused', reason: `${name}${reason ? ` (${reason})` : ''}: ${(error as Error).message}` };
    }
  }
}
