/**
 * PushProvider on Amazon SNS mobile push: K platform applications per platform (APNs, APNs
 * sandbox, FCM; each its own provider quota, e.g. one FCM project each), a user's devices on the one
 * their id hashes to, one platform endpoint per device token, `Publish` to the endpoint ARN.
 */
import {
  CreatePlatformEndpointCommand,
  DeleteEndpointCommand,
  GetEndpointAttributesCommand,
  InvalidParameterException,
  NotFoundException,
  PublishCommand,
  SetEndpointAttributesCommand,
  type SNSClient,
} from '@aws-sdk/client-sns';
import type { Platform } from '../../contract/channel-schemas.js';
import type { PushMessage, PushOutcome, PushProvider } from '../../core/channels/ports.js';
import { platformApplicationIndex } from '../../core/channels/devices.js';

/** One ARN, or K of them (a user's devices stick to one by a hash of their id). */
export type PlatformApplicationArns = Partial<Record<Platform, string | readonly string[]>>;

const listOf = (arns: string | readonly string[] | undefined): readonly string[] => (arns === undefined ? [] : typeof arns === 'string' ? [arns] : arns);

export class PlatformNotConfiguredError extends Error {
  override readonly name = 'PlatformNotConfiguredError';
}

/** Errors SNS answers when the endpoint can never deliver again (the provider said the token is invalid or the app was removed). */
const INVALID_ENDPOINT_ERRORS = new Set(['EndpointDisabledException', 'EndpointDisabled', 'PlatformApplicationDisabledException', 'NotFoundException']);

/** The payload per platform key SNS forwards (`MessageStructure: json`). */
export function snsPushPayload(message: PushMessage): string {
  const apns = JSON.stringify({ aps: { alert: { title: message.title, body: message.body }, sound: 'default', 'mutable-content': 1 }, ...message.data });
  const fcm = JSON.stringify({
    fcmV1Message: { message: { notification: { title: message.title, body: message.body }, data: message.data, android: { collapse_key: message.collapseKey.slice(0, 64) } } },
  });
  return JSON.stringify({ default: message.body, APNS: apns, APNS_SANDBOX: apns, GCM: fcm });
}

export class SnsPushProvider implements PushProvider {
  constructor(
    private readonly client: SNSClient,
    private readonly applications: PlatformApplicationArns,
  ) {}

  platforms(): Platform[] {
    return (Object.keys(this.applications) as Platform[]).filter((platform) => listOf(this.applications[platform]).length > 0);
  }

  /** CreatePlatformEndpoint (SNS answers the existing ARN for a known token), then re-enable / fix the token if SNS had disabled it. */
  async upsertEndpoint(platform: Platform, token: string, userData: string, owner?: { tenantId: string; userId: string }): Promise<string> {
    const applications = listOf(this.applications[platform]);
    const application = applications[owner ? platformApplicationIndex(owner.tenantId, owner.userId, applications.length) : 0];
    if (!application) throw new PlatformNotConfiguredError(`push platform ${platform} is not configured`);
    let endpointArn: string | undefined;
    try {
      endpointArn = (await this.client.send(new CreatePlatformEndpointCommand({ PlatformApplicationArn: application, Token: token, CustomUserData: userData }))).EndpointArn;
    } catch (error) {
      // "Endpoint <arn> already exists with the same Token, but different attributes."
      const existing = error instanceof InvalidParameterException ? /Endpoint (arn:[^\s]+) already exists/.exec(error.message)?.[1] : undefined;
      if (!existing) throw error;
      endpointArn = existing;
    }
    if (!endpointArn) throw new Error('CreatePlatformEndpoint answered no EndpointArn');
    let attributes: Record<string, string> | undefined;
    try {
      attributes = (await this.client.send(new GetEndpointAttributesCommand({ EndpointArn: endpointArn }))).Attributes;
    } catch (error) {
      if (!(error instanceof NotFoundException)) throw error;
      return this.upsertEndpointAfterDelete(application, token, userData);
    }
    if (attributes?.Token !== token || attributes?.Enabled !== 'true' || attributes?.CustomUserData !== userData) {
      await this.client.send(new SetEndpointAttributesCommand({ EndpointArn: endpointArn, Attributes: { Token: token, Enabled: 'true', CustomUserData: userData } }));
    }
    return endpointArn;
  }

  private async upsertEndpointAfterDelete(application: string, token: string, userData: string): Promise<string> {
    const created = await this.client.send(new CreatePlatformEndpointCommand({ PlatformApplicationArn: application, Token: token, CustomUserData: userData }));
    if (!created.EndpointArn) throw new Error('CreatePlatformEndpoint answered no EndpointArn');
    return created.EndpointArn;
  }

  async deleteEndpoint(endpointArn: string): Promise<void> {
    await this.client.send(new DeleteEndpointCommand({ EndpointArn: endpointArn }));
  }

  async publish(endpointArn: string, platform: Platform, message: PushMessage): Promise<PushOutcome> {
    try {
      const answer = await this.client.send(
        new PublishCommand({
          TargetArn: endpointArn,
          MessageStructure: 'json',
          Message: snsPushPayload(message),
          MessageAttributes:
            platform === 'fcm'
              ? {}
              : {
                  'AWS.SNS.MOBILE.APNS.PUSH_TYPE': { DataType: 'String', StringValue: 'alert' },
                  'AWS.SNS.MOBILE.APNS.COLLAPSE_ID': { DataType: 'String', StringValue: message.collapseKey.slice(0, 64) },
                },
        }),
      );
      return { status: 'sent', messageId: answer.MessageId ?? '' };
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      if (INVALID_ENDPOINT_ERRORS.has(name)) return { status: 'invalid_endpoint', reason: `${name}: ${(error as Error).message}` };
      // Throttling, 5xx, network: SQS redelivers after the backoff.
      return { status: 'throttled', reason: `${name}: ${(error as Error).message}` };
    }
  }
}
