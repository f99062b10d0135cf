/**
 * Local stand-in for Amazon SNS mobile push, spoken to by the real `@aws-sdk/client-sns` (AWS query
 * protocol: form-encoded `Action=...`, XML answers) at `<http>/_aws/sns`: CreatePlatformEndpoint,
 * SetEndpointAttributes, GetEndpointAttributes, DeleteEndpoint and Publish to an endpoint ARN. It
 * records what each device would have received; a token marked invalid (as APNs/FCM would report
 * it) disables its endpoint, so the next Publish fails with `EndpointDisabled` like SNS.
 *
 * Only callers on this machine that sign with the runtime's local credentials are answered.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { LocalSqsCredentials } from '../sqs/credentials.js';
import { verifySigV4 } from '../sqs/sigv4.js';
import { isCallerOnThisMachine, type LocalRequest, type LocalResponse, type LocalRoute } from '../http/router.js';

export const LOCAL_SNS_PATH = '/_aws/sns';
const XMLNS = 'http://sns.amazonaws.com/doc/2010-03-31/';
/** Recorded pushes kept per device (oldest dropped first). */
const MAX_RECORDED_PER_DEVICE = 200;

export interface RecordedPush {
  messageId: string;
  atMs: number;
  /** The payload of the endpoint's platform (APNS / APNS_SANDBOX / GCM key), parsed. */
  payload: unknown;
  title?: string;
  body?: string;
  attributes: Record<string, string>;
}

export interface LocalEndpoint {
  endpointArn: string;
  platformApplicationArn: string;
  platform: string;
  token: string;
  enabled: boolean;
  customUserData: string;
  received: RecordedPush[];
}

class SnsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);

function xmlAnswer(action: string, result: string): LocalResponse {
  return {
    status: 200,
    headers: { 'content-type': 'text/xml' },
    body: `<${action}Response xmlns="${XMLNS}"><${action}Result>${result}</${action}Result><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`,
  };
}

function xmlError(error: SnsError): LocalResponse {
  return {
    status: error.status,
    headers: { 'content-type': 'text/xml' },
    body: `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${error.status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${escapeXml(error.code)}</Code><Message>${escapeXml(error.message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  };
}

/** `Attributes.entry.1.key=Token&Attributes.entry.1.value=...` -> `{ Token: ... }` (also `MessageAttributes.entry.N.Name/Value.StringValue`). */
function entriesOf(form: URLSearchParams, prefix: string, keyName: string, valueName: string): Record<string, string> {
  const result: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let index = 1; index <= 100; index += 1) {
    const key = form.get(`${prefix}.entry.${index}.${keyName}`);
    if (key === null) break;
    result[key] = form.get(`${prefix}.entry.${index}.${valueName}`) ?? '';
  }
  return result;
}

function platformOf(applicationArn: string): string {
  // arn:aws:sns:<region>:<account>:app/<APNS|APNS_SANDBOX|GCM>/<name>
  return /:app\/([A-Z_]+)\//.exec(applicationArn)?.[1] ?? '';
}

export class LocalMobilePush {
  private readonly endpoints = new Map<string, LocalEndpoint>();
  private readonly invalidTokens = new Set<string>();
  private throttleNext = 0;
  private publishCalls = 0;

  constructor(private readonly options: { region: string; accountId: string }) {}

  /** Every endpoint with what it received (the dev route and tests read this). */
  devices(): LocalEndpoint[] {
    return [...this.endpoints.values()].map((endpoint) => ({ ...endpoint, received: [...endpoint.received] }));
  }

  /** What the endpoints of this token received. */
  receivedBy(token: string): RecordedPush[] {
    return [...this.endpoints.values()].filter((endpoint) => endpoint.token === token).flatMap((endpoint) => endpoint.received);
  }

  /** As APNs / FCM would report: pushes to this token fail and SNS disables its endpoint. */
  markTokenInvalid(token: string): void {
    this.invalidTokens.add(token);
  }

  /** What an operator (or an older release) left in an endpoint's CustomUserData (tests of ownership). */
  setCustomUserData(endpointArn: string, customUserData: string): void {
    this.endpoint(endpointArn).customUserData = customUserData;
  }

  /** The next `count` Publish calls answer 429 Throttling (back-pressure tests). */
  throttle(count: number): void {
    this.throttleNext = count;
  }

  get publishes(): number {
    return this.publishCalls;
  }

  reset(): void {
    this.endpoints.clear();
    this.invalidTokens.clear();
    this.throttleNext = 0;
    this.publishCalls = 0;
  }

  private endpoint(arn: string | null): LocalEndpoint {
    const endpoint = arn === null ? undefined : this.endpoints.get(arn);
    if (!endpoint) throw new SnsError('NotFound', 'Endpoint does not exist', 404);
    return endpoint;
  }

  handleAction(action: string, form: URLSearchParams): LocalResponse {
    switch (action) {
      case 'CreatePlatformEndpoint': {
        const application = form.get('PlatformApplicationArn');
        const token = form.get('Token');
        if (!application || !token) throw new SnsError('InvalidParameter', 'Invalid parameter: PlatformApplicationArn and Token are required');
        const customUserData = form.get('CustomUserData') ?? '';
        const endpointArn = `${application.replace(':app/', ':endpoint/')}/${createHash('sha256').update(`${application}\u0000${token}`).digest('hex').slice(0, 32)}`;
        const existing = this.endpoints.get(endpointArn);
        // SNS: the same token with different attributes is an error naming the existing endpoint.
        if (existing && (existing.customUserData !== customUserData || !existing.enabled)) {
          throw new SnsError('InvalidParameter', `Invalid parameter: Token Reason: Endpoint ${endpointArn} already exists with the same Token, but different attributes.`);
        }
        if (!existing) this.endpoints.set(endpointArn, { endpointArn, platformApplicationArn: application, platform: platformOf(application), token, enabled: true, customUserData, received: [] });
        return xmlAnswer('CreatePlatformEndpoint', `<EndpointArn>${escapeXml(endpointArn)}</EndpointArn>`);
      }
      case 'GetEndpointAttributes': {
        const endpoint = this.endpoint(form.get('EndpointArn'));
        const attributes = { Enabled: String(endpoint.enabled), Token: endpoint.token, CustomUserData: endpoint.customUserData };
        return xmlAnswer('GetEndpointAttributes', `<Attributes>${Object.entries(attributes).map(([key, value]) => `<entry><key>${key}</key><value>${escapeXml(value)}</value></entry>`).join('')}</Attributes>`);
      }
      case 'SetEndpointAttributes': {
        const endpoint = this.endpoint(form.get('EndpointArn'));
        const attributes = entriesOf(form, 'Attributes', 'key', 'value');
        if (attributes.Token !== undefined) endpoint.token = attributes.Token;
        if (attributes.Enabled !== undefined) endpoint.enabled = attributes.Enabled === 'true';
        if (attributes.CustomUserData !== undefined) endpoint.customUserData = attributes.CustomUserData;
        return xmlAnswer('SetEndpointAttributes', '');
      }
      case 'DeleteEndpoint': {
        const arn = form.get('EndpointArn');
        if (arn) this.endpoints.delete(arn);
        return xmlAnswer('DeleteEndpoint', '');
      }
      case 'Publish':
        return this.publish(form);
      default:
        throw new SnsError('InvalidAction', `${action} is not an action of the local SNS mobile push stand-in`);
    }
  }

  private publish(form: URLSearchParams): LocalResponse {
    this.publishCalls += 1;
    if (this.throttleNext > 0) {
      this.throttleNext -= 1;
      throw new SnsError('Throttling', 'Rate exceeded', 429);
    }
    const endpoint = this.endpoint(form.get('TargetArn'));
    if (!endpoint.enabled) throw new SnsError('EndpointDisabled', 'Endpoint is disabled');
    if (this.invalidTokens.has(endpoint.token)) {
      // The provider answered "Unregistered" / "BadDeviceToken": SNS disables the endpoint.
      endpoint.enabled = false;
      throw new SnsError('EndpointDisabled', 'Endpoint is disabled');
    }
    const message = form.get('Message') ?? '';
    let payload: unknown = message;
    if (form.get('MessageStructure') === 'json') {
      try {
        const perPlatform = JSON.parse(message) as Record<string, string>;
        const raw = perPlatform[endpoint.platform] ?? perPlatform.default ?? '';
        payload = JSON.parse(raw) as unknown;
      } catch {
        throw new SnsError('InvalidParameter', 'Invalid parameter: Message Structure - JSON message body failed to parse');
      }
      // A platform payload of null or a scalar used to escape as a TypeError (a 500); APNs/FCM want an object.
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new SnsError('InvalidParameter', 'Invalid parameter: Message Structure - the platform payload must be a JSON object');
    }
    const alert = (payload as { aps?: { alert?: { title?: string; body?: string } } }).aps?.alert;
    const fcm = (payload as { fcmV1Message?: { message?: { notification?: { title?: string; body?: string } } } }).fcmV1Message?.message?.notification;
    const messageId = randomUUID();
    const title = alert?.title ?? fcm?.title;
    const body = alert?.body ?? fcm?.body;
    endpoint.received.push({ messageId, atMs: Date.now(), payload, ...(title !== undefined ? { title } : {}), ...(body !== undefined ? { body } : {}), attributes: entriesOf(form, 'MessageAttributes', 'Name', 'Value.StringValue') });
    if (endpoint.received.length > MAX_RECORDED_PER_DEVICE) endpoint.received.shift();
    return xmlAnswer('Publish', `<MessageId>${messageId}</MessageId>`);
  }
}

/** `POST /_aws/sns` (query protocol), answered for callers on this machine signing with the local credentials. */
export function createLocalSnsRoute(sns: LocalMobilePush, options: { credentials?: LocalSqsCredentials; serverHost: string }): LocalRoute {
  return {
    async handle(request: LocalRequest) {
      if (request.method !== 'POST' || request.url.pathname.replace(/\/+$/, '') !== LOCAL_SNS_PATH) return undefined;
      if (!isCallerOnThisMachine(request, options.serverHost)) return xmlError(new SnsError('AuthorizationError', 'the local SNS endpoint answers callers on this machine only', 403));
      if (options.credentials) {
        const failure = await verifySigV4(request, options.credentials, 'sns');
        if (failure) return xmlError(new SnsError(failure.code, failure.message, 403));
      }
      const form = new URLSearchParams(request.body.toString('utf8'));
      try {
        return sns.handleAction(form.get('Action') ?? '', form);
      } catch (error) {
        if (error instanceof SnsError) return xmlError(error);
        throw error;
      }
    },
  };
}
