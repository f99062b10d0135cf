/**
 * Local stand-in for Amazon SES v2 `SendEmail`, spoken to by the real `@aws-sdk/client-sesv2`
 * (REST-JSON: `POST <http>/_aws/ses/v2/email/outbound-emails`), recording every mail it accepts.
 * (The `aws-ses-v2-local` package runs its own Express server on another port; this one shares the
 * runtime's HTTP server, its caller check and its signing credentials, in about a hundred lines.)
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { LocalSqsCredentials } from '../sqs/credentials.js';
import { verifySigV4 } from '../sqs/sigv4.js';
import { isCallerOnThisMachine, type LocalRequest, type LocalResponse, type LocalRoute } from '../http/router.js';

export const LOCAL_SES_PATH = '/_aws/ses';
const MAX_RECORDED = 1_000;

const content = z.object({ Data: z.string(), Charset: z.string().optional() });
const sendEmailSchema = z.object({
  FromEmailAddress: z.string().min(3),
  FromEmailAddressIdentityArn: z.string().optional(),
  ConfigurationSetName: z.string().optional(),
  Destination: z.object({ ToAddresses: z.array(z.string()).min(1).max(50), CcAddresses: z.array(z.string()).optional(), BccAddresses: z.array(z.string()).optional() }),
  Content: z.object({
    Simple: z.object({
      Subject: content,
      Body: z.object({ Text: content.optional(), Html: content.optional() }),
      Headers: z.array(z.object({ Name: z.string(), Value: z.string() })).optional(),
    }),
  }),
});

export interface RecordedEmail {
  messageId: string;
  atMs: number;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  configurationSetName?: string;
}

export class LocalSesV2 {
  private readonly mails: RecordedEmail[] = [];
  private throttleNext = 0;
  private stallNext = 0;
  /** SendEmail calls held without an answer so far (`stall`). */
  stalled = 0;

  /** Every accepted mail, oldest first. */
  mailbox(): RecordedEmail[] {
    return [...this.mails];
  }

  /** Mail sent to one address. */
  mailTo(address: string): RecordedEmail[] {
    return this.mails.filter((mail) => mail.to.includes(address));
  }

  /** The next `count` SendEmail calls answer 429 TooManyRequestsException. */
  throttle(count: number): void {
    this.throttleNext = count;
  }

  /**
   * The next `count` SendEmail calls are received and never answered (nor delivered): the sender
   * waits as on a provider that hangs, so a test can kill it between its claim and the answer.
   */
  stall(count: number): void {
    this.stallNext = count;
  }

  reset(): void {
    this.mails.length = 0;
    this.throttleNext = 0;
    this.stallNext = 0;
  }

  /** Whether this call is one to stall (counted as stalled). */
  takeStall(): boolean {
    if (this.stallNext === 0) return false;
    this.stallNext -= 1;
    this.stalled += 1;
    return true;
  }

  send(input: unknown): LocalResponse {
    if (this.throttleNext > 0) {
      this.throttleNext -= 1;
      return sesError(429, 'TooManyRequestsException', 'Maximum sending rate exceeded.');
    }
    const parsed = sendEmailSchema.safeParse(input);
    if (!parsed.success) return sesError(400, 'BadRequestException', parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    const { Content, Destination } = parsed.data;
    const mail: RecordedEmail = {
      messageId: randomUUID(),
      atMs: Date.now(),
      from: parsed.data.FromEmailAddress,
      to: Destination.ToAddresses,
      subject: Content.Simple.Subject.Data,
      text: Content.Simple.Body.Text?.Data ?? '',
      html: Content.Simple.Body.Html?.Data ?? '',
      headers: Object.fromEntries((Content.Simple.Headers ?? []).map((header) => [header.Name, header.Value])),
      ...(parsed.data.ConfigurationSetName ? { configurationSetName: parsed.data.ConfigurationSetName } : {}),
    };
    this.mails.push(mail);
    if (this.mails.length > MAX_RECORDED) this.mails.shift();
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ MessageId: mail.messageId }) };
  }
}

function sesError(status: number, type: string, message: string): LocalResponse {
  return { status, headers: { 'content-type': 'application/json', 'x-amzn-errortype': type }, body: JSON.stringify({ message }) };
}

/** `POST /_aws/ses/v2/email/outbound-emails`, for callers on this machine signing with the local credentials. */
export function createLocalSesRoute(ses: LocalSesV2, options: { credentials?: LocalSqsCredentials; serverHost: string }): LocalRoute {
  return {
    async handle(request: LocalRequest) {
      if (!request.url.pathname.startsWith(`${LOCAL_SES_PATH}/`)) return undefined;
      if (!isCallerOnThisMachine(request, options.serverHost)) return sesError(403, 'AccessDeniedException', 'the local SES endpoint answers callers on this machine only');
      if (options.credentials) {
        const failure = await verifySigV4(request, options.credentials, 'ses');
        if (failure) return sesError(403, failure.code, failure.message);
      }
      if (request.method !== 'POST' || request.url.pathname !== `${LOCAL_SES_PATH}/v2/email/outbound-emails`) return sesError(404, 'NotFoundException', `the local SES stand-in serves SendEmail only, not ${request.method} ${request.url.pathname}`);
      let input: unknown;
      try {
        input = JSON.parse(request.body.toString('utf8') || '{}');
      } catch {
        return sesError(400, 'BadRequestException', 'body is not JSON');
      }
      // Never answered: the caller hangs as on a provider that does (a kill test stops it there).
      if (ses.takeStall()) return new Promise<LocalResponse>(() => undefined);
      return ses.send(input);
    },
  };
}
