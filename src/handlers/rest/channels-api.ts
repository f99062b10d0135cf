/**
 * REST routes of the channels, served by the preferences function (the user's delivery settings):
 * push devices (`GET/POST /devices`, `DELETE /devices/{id}`), push consent (`PUT/DELETE
 * /push-consent`, default-deny), the email address (`PUT/DELETE /email-address`, the verified
 * `email` claim of the caller's token) and the signed one-click unsubscribe (`GET/POST /unsubscribe`,
 * no token: the link is its own proof). Every route acts on the caller's own records only.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { NotFoundError, ValidationError } from '../../core/model/errors.js';
import { MAX_DEVICES_PER_USER, deviceIdOf, type Device } from '../../core/channels/devices.js';
import { ALL_TYPES, verifyUnsubscribeToken } from '../../core/channels/unsubscribe-token.js';
import type { Clock } from '../../core/ports/clock.js';
import type { ChannelStateStore, DeviceEndpoints } from '../../core/channels/ports.js';
import { errorBody, identityFrom, json, parseJsonBody, type RestHandler } from './http.js';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { UserRef } from '../../core/model/user.js';
import { noQuerySchema } from '../../contract/rest-schemas.js';
import { deviceInputSchema, devicePathSchema, E164_PATTERN, pushConsentInputSchema, smsOptInInputSchema, unsubscribeQuerySchema } from '../../contract/channel-schemas.js';
import { verifiedPhoneOf } from '../../adapters/jwt-verifier.js';

export interface ChannelsApiDeps {
  store: ChannelStateStore;
  /** Undefined: push is not configured (no platform application): device registration answers 400. */
  endpoints?: DeviceEndpoints;
  /** Undefined: email is not configured: unsubscribe links cannot exist, the route answers 404. */
  unsubscribeSecret?: string;
  knownTypes: readonly string[];
  tenantClaim: string;
  clock: Clock;
  logger?: Logger;
}

const sameUser = (a: UserRef, b: UserRef) => a.tenantId === b.tenantId && a.userId === b.userId;

function present(device: Device) {
  // The token stays server-side: a leaked listing cannot be replayed to push to the phone.
  return { id: device.id, platform: device.platform, ...(device.locale ? { locale: device.locale } : {}), createdAt: device.createdAt, updatedAt: device.updatedAt };
}

/** The verified `phone_number` claim (E.164) the authorizer passed on (jwt mode) or Cognito's verified claims. */
function verifiedPhoneFrom(event: APIGatewayProxyEvent): string | undefined {
  const authorizer = (event.requestContext?.authorizer ?? {}) as Record<string, unknown>;
  if (typeof authorizer.phoneNumber === 'string') return E164_PATTERN.test(authorizer.phoneNumber) ? authorizer.phoneNumber : undefined;
  return verifiedPhoneOf((authorizer.claims ?? {}) as Record<string, unknown>);
}

/** The verified `email` claim the authorizer passed on (jwt mode) or Cognito's verified claims. */
function verifiedEmailFrom(event: APIGatewayProxyEvent): string | undefined {
  const authorizer = (event.requestContext?.authorizer ?? {}) as Record<string, unknown>;
  if (typeof authorizer.email === 'string') return authorizer.email;
  const claims = (authorizer.claims ?? {}) as Record<string, unknown>;
  return claims.email_verified === 'true' || claims.email_verified === true ? (typeof claims.email === 'string' ? claims.email : undefined) : undefined;
}

const html = (status: number, body: string): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; form-action 'self'", 'referrer-policy': 'no-referrer' },
  body,
});

export function channelsRoutes(deps: ChannelsApiDeps): Record<string, RestHandler> {
  const known = new Set(deps.knownTypes);
  const grantOf = (event: APIGatewayProxyEvent) => {
    const { token } = unsubscribeQuerySchema.parse(event.queryStringParameters ?? {});
    const grant = deps.unsubscribeSecret ? verifyUnsubscribeToken(token, deps.unsubscribeSecret) : undefined;
    if (!grant || (grant.type !== ALL_TYPES && !known.has(grant.type))) throw new NotFoundError('this unsubscribe link is not valid');
    return grant;
  };
  return {
    'GET /devices': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      noQuerySchema.parse(event.queryStringParameters ?? {});
      const state = await deps.store.channelState(user);
      return json(200, { items: state.devices.map(present), pushConsent: state.pushConsent, emailAddress: state.emailAddress, emailUnsubscribed: state.emailUnsubscribed });
    },
    'POST /devices': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      noQuerySchema.parse(event.queryStringParameters ?? {});
      const input = deviceInputSchema.parse(parseJsonBody(event));
      if (!deps.endpoints || !deps.endpoints.platforms().includes(input.platform)) {
        throw new ValidationError(`push platform ${input.platform} is not configured on this deployment`, [{ path: 'platform', message: `not configured; configured: ${deps.endpoints?.platforms().join(', ') || 'none'}` }], 'platform_not_configured');
      }
      const id = deviceIdOf(input.platform, input.token);
      const now = new Date(deps.clock.nowMs()).toISOString();
      const existing = (await deps.store.listDevices(user)).find((device) => device.id === id);
      // One owner per token (a phone signed out of one account and into another, maybe another
      // tenant): the previous owner's device goes BEFORE the endpoint names the new one, so a retry
      // after a crash still finds whom to take it from.
      const { endpointArn, owner } = await deps.endpoints.findOrCreateEndpoint(input.platform, input.token, user);
      if (owner && !sameUser(owner, user)) {
        await deps.store.deleteDevice(owner, id);
        deps.logger?.info('push token moved to the user who registered it last', { deviceId: id, fromTenantId: owner.tenantId, toTenantId: user.tenantId });
      }
      await deps.endpoints.assignEndpoint(endpointArn, input.token, user);
      const device: Device = { id, platform: input.platform, token: input.token, ...(input.locale ? { locale: input.locale } : {}), endpointArn, createdAt: existing?.createdAt ?? now, updatedAt: now };
      if (!(await deps.store.putDevice(user, device, MAX_DEVICES_PER_USER))) {
        return json(409, errorBody('too_many_devices', `at most ${MAX_DEVICES_PER_USER} devices per user; DELETE /devices/{id} one first`));
      }
      return json(existing ? 200 : 201, present(device));
    },
    'DELETE /devices/{id}': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      const { id } = devicePathSchema.parse(event.pathParameters ?? {});
      const removed = await deps.store.deleteDevice(user, id);
      if (!removed) throw new NotFoundError('no such device');
      // The endpoint goes only if it still names the caller: a token that moved to another user keeps theirs.
      await deps.endpoints?.deleteEndpointOf(removed.endpointArn, user);
      return json(204);
    },
    'PUT /push-consent': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      noQuerySchema.parse(event.queryStringParameters ?? {});
      const { version } = pushConsentInputSchema.parse(parseJsonBody(event));
      const pushConsent = { grantedAt: new Date(deps.clock.nowMs()).toISOString(), version };
      await deps.store.putPushConsent(user, pushConsent);
      return json(200, { pushConsent });
    },
    'DELETE /push-consent': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      await deps.store.deletePushConsent(user);
      return json(204);
    },
    'PUT /email-address': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      noQuerySchema.parse(event.queryStringParameters ?? {});
      const email = verifiedEmailFrom(event);
      if (!email) throw new ValidationError('the token carries no verified email claim (email + email_verified: true)', [{ path: 'token.email', message: 'missing or not verified' }], 'no_verified_email');
      await deps.store.putEmailAddress(user, email);
      return json(200, { emailAddress: email });
    },
    'DELETE /email-address': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      await deps.store.deleteEmailAddress(user);
      return json(204);
    },
    // SMS: an explicit opt-in, to the number the identity provider verified (never one from the body).
    'PUT /sms': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      noQuerySchema.parse(event.queryStringParameters ?? {});
      const { version } = smsOptInInputSchema.parse(parseJsonBody(event));
      const phoneNumber = verifiedPhoneFrom(event);
      if (!phoneNumber) throw new ValidationError('the token carries no verified phone number (phone_number in E.164 + phone_number_verified: true)', [{ path: 'token.phone_number', message: 'missing, not E.164 or not verified' }], 'no_verified_phone_number');
      const sms = { phoneNumber, optedInAt: new Date(deps.clock.nowMs()).toISOString(), version };
      await deps.store.putSmsOptIn!(user, sms);
      return json(200, { sms });
    },
    'DELETE /sms': async (event) => {
      const user = identityFrom(event, deps.tenantClaim);
      await deps.store.deleteSmsOptIn!(user);
      return json(204);
    },
    // A link scanner may fetch GET: it only shows the button; the POST (RFC 8058 one-click, or the button) unsubscribes.
    'GET /unsubscribe': async (event) => {
      grantOf(event);
      const token = encodeURIComponent(unsubscribeQuerySchema.parse(event.queryStringParameters ?? {}).token);
      return html(200, `<!doctype html><title>Unsubscribe</title><form method="post" action="?token=${token}"><button>Unsubscribe from these emails</button></form>`);
    },
    'POST /unsubscribe': async (event) => {
      const grant = grantOf(event);
      await deps.store.unsubscribeEmail({ tenantId: grant.tenantId, userId: grant.userId }, grant.type);
      const accept = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'accept')?.[1] ?? '';
      if (accept.includes('text/html')) return html(200, '<!doctype html><title>Unsubscribed</title><p>You will not get these emails any more.</p>');
      return json(200, { unsubscribed: grant.type });
    },
  };
}
