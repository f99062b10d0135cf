/**
 * PushProvider on Amazon SNS mobile push: K platform applications per platform (APNs, APNs
 * sandbox, FCM; each its own provider quota, e.g. one FCM project each), a device token on the one
 * it hashes to, one platform endpoint per device token, `Publish` to the endpoint ARN.
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
import * as z from 'zod';
import type { DeviceEndpoints, PushMessage, PushOutcome, PushProvider } from '../../core/channels/ports.js';
import { platformApplicationIndex } from '../../core/channels/devices.js';
import { IDENTIFIER_PATTERN } from '../../core/model/keys.js';
import type { UserRef } from '../../core/model/user.js';

/** One ARN, or K of them (a device token sticks to one by a hash of the token). */
export type PlatformApplicationArns = Partial<Record<Platform, string | readonly string[]>>;

const listOf = (arns: string | readonly string[] | undefined): readonly string[] => (arns === undefined ? [] : typeof arns === 'string' ? [arns] : arns);

/** CustomUserData names the owner, so the endpoint is the record of whose the token is (and an operator can tell in SNS). */
const ownerSchema = z.object({ tenantId: z.string().regex(IDENTIFIER_PATTERN), userId: z.string().regex(IDENTIFIER_PATTERN) });
const customUserDataOf = (owner: UserRef) => JSON.stringify({ tenantId: owner.tenantId, userId: owner.userId });

/** The owner a CustomUserData names; undefined for anything else (empty, an operator's note, data of an older release). */
function ownerOf(customUserData: string | undefined): UserRef | undefined {
  try {
    const parsed = ownerSchema.safeParse(JSON.parse(customUserData ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

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

export class SnsPushProvider implements PushProvider, DeviceEndpoints {
  constructor(
    private readonly client: SNSClient,
    private readonly applications: PlatformApplicationArns,
  ) {}

  platforms(): Platform[] {
    return (Object.keys(this.applications) as Platform[]).filter((platform) => listOf(this.applications[platform]).length > 0);
  }

  /**
   * CreatePlatformEndpoint naming `owner` (SNS answers the existing ARN for a known token with the
   * same attributes, and names it in an error when they differ), then the owner the endpoint names now.
   */
  async findOrCreateEndpoint(platform: Platform, token: string, owner: UserRef): Promise<{ endpointArn: string; owner?: UserRef }> {
    const applications = listOf(this.applications[platform]);
    const application = applications[platformApplicationIndex(token, applications.length)];
    if (!application) throw new PlatformNotConfiguredError(`push platform ${platform} is not configured`);
    const created = await this.createEndpoint(application, token, owner);
    const attributes = await this.attributesOf(created);
    // Deleted between the two calls (an invalid token's cleanup): a fresh one names the caller.
    if (!attributes) return { endpointArn: await this.createEndpoint(application, token, owner) };
    const current = ownerOf(attributes.CustomUserData);
    return { endpointArn: created, ...(current ? { owner: current } : {}) };
  }

  /** SetEndpointAttributes when the endpoint does not yet name `owner`, carry `token` and stand enabled. */
  async assignEndpoint(endpointArn: string, token: string, owner: UserRef): Promise<void> {
    const attributes = await this.attributesOf(endpointArn);
    const userData = customUserDataOf(owner);
    if (attributes?.Token === token && attributes.Enabled === 'true' && attributes.CustomUserData === userData) return;
    await this.client.send(new SetEndpointAttributesCommand({ EndpointArn: endpointArn, Attributes: { Token: token, Enabled: 'true', CustomUserData: userData } }));
  }

  /** DeleteEndpoint unless its CustomUserData names another user (the token moved on). */
  async deleteEndpointOf(endpointArn: string, owner: UserRef): Promise<boolean> {
    const attributes = await this.attributesOf(endpointArn);
    if (!attributes) return true;
    const current = ownerOf(attributes.CustomUserData);
    if (current && (current.tenantId !== owner.tenantId || current.userId !== owner.userId)) return false;
    await this.deleteEndpoint(endpointArn);
    return true;
  }

  private async createEndpoint(application: string, token: string, owner: UserRef): Promise<string> {
    try {
      const created = await this.client.send(new CreatePlatformEndpointCommand({ PlatformApplicationArn: application, Token: token, CustomUserData: customUserDataOf(owner) }));
      if (!created.EndpointArn) throw new Error('CreatePlatformEndpoint answered no EndpointArn');
      return created.EndpointArn;
    } catch (error) {
      // "Endpoint <arn> already exists with the same Token, but different attributes."
      const existing = error instanceof InvalidParameterException ? /Endpoint (arn:[^\s]+) already exists/.exec(error.message)?.[1] : undefined;
      if (!existing) throw error;
      return existing;
    }
  }

  /** The endpoint's attributes, undefined when it no longer exists. */
  private async attributesOf(endpointArn: string): Promise<Record<string, string> | undefined> {
    try {
      return (await this.client.send(new GetEndpointAttributesCommand({ EndpointArn: endpointArn }))).Attributes ?? {};
    } catch (error) {
      if (error instanceof NotFoundException) return undefined;
      throw error;
    }
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
