/** EmailProvider on Amazon SES v2 `SendEmail` (simple content with the one-click unsubscribe headers). */
import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { EmailMessage, EmailOutcome, EmailProvider } from '../../core/channels/ports.js';

export interface SesEmailSettings {
  /** `Name <address>` of the verified identity. */
  fromAddress: string;
  /** The identity's ARN (sending authorization / least-privilege policies name it). */
  fromArn?: string;
  configurationSetName?: string;
}

/** SES answers these for a message it will never accept (a retry cannot help). */
const REJECTED = new Set(['MessageRejected', 'MailFromDomainNotVerifiedException', 'AccountSuspendedException', 'SendingPausedException', 'BadRequestException', 'NotFoundException']);

export class SesEmailProvider implements EmailProvider {
  constructor(
    private readonly client: SESv2Client,
    private readonly settings: SesEmailSettings,
  ) {}

  async send(message: EmailMessage): Promise<EmailOutcome> {
    try {
      const answer = await this.client.send(
        new SendEmailCommand({
          FromEmailAddress: this.settings.fromAddress,
          ...(this.settings.fromArn ? { FromEmailAddressIdentityArn: this.settings.fromArn } : {}),
          ...(this.settings.configurationSetName ? { ConfigurationSetName: this.settings.configurationSetName } : {}),
          Destination: { ToAddresses: [message.to] },
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: 'UTF-8' },
              Body: { Text: { Data: message.text, Charset: 'UTF-8' }, Html: { Data: message.html, Charset: 'UTF-8' } },
              // RFC 8058: mail clients show an unsubscribe button that POSTs to the URL.
              Headers: [
                { Name: 'List-Unsubscribe', Value: `<${message.unsubscribeUrl}>` },
                { Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' },
              ],
            },
          },
        }),
      );
      return { status: 'sent', messageId: answer.MessageId ?? '' };
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      if (REJECTED.has(name)) return { status: 'rejected', reason: `${name}: ${(error as Error).message}` };
      return { status: 'throttled', reason: `${name}: ${(error as Error).message}` };
    }
  }
}
