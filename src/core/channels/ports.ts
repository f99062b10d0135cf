/** Ports of the push, email and SMS channels: devices and channel state, dedup, rate counters, providers. */
import type { Channel } from '../../contract/channels.js';
import type { Device, PushConsent } from './devices.js';
import type { UserRef } from '../model/user.js';
import type { Platform } from '../../contract/channel-schemas.js';
import type { SmsOptIn, SmsSpendLimits } from './sms.js';

/** What the channel consumers need of one user, read in one Query (never cached: consent and unsubscribes apply at once). */
export interface ChannelState {
  devices: Device[];
  pushConsent: PushConsent | null;
  /** The verified address recorded by `PUT /email-address`; null = no email. */
  emailAddress: string | null;
  /** Types the user unsubscribed from by email link (`*` = every type). */
  emailUnsubscribed: string[];
  /** The SMS opt-in `PUT /sms` recorded (a verified number); absent or null = no SMS. */
  sms?: SmsOptIn | null;
}

export interface ChannelStateStore {
  channelState(user: UserRef): Promise<ChannelState>;
  listDevices(user: UserRef): Promise<Device[]>;
  /** Puts the device (create or update, same id for the same token); false when the user already has the maximum and this is a new device. */
  putDevice(user: UserRef, device: Device, maxDevices: number): Promise<boolean>;
  /** Deletes the device; the removed device (for its endpoint) or undefined when there was none. */
  deleteDevice(user: UserRef, deviceId: string): Promise<Device | undefined>;
  putPushConsent(user: UserRef, consent: PushConsent): Promise<void>;
  deletePushConsent(user: UserRef): Promise<void>;
  putEmailAddress(user: UserRef, address: string): Promise<void>;
  deleteEmailAddress(user: UserRef): Promise<void>;
  /** Records an unsubscribe (honoured by the next send: the consumer does not cache channel state). */
  unsubscribeEmail(user: UserRef, type: string): Promise<void>;
  /** SMS opt-in (`PUT /sms`) and its withdrawal (`DELETE /sms`). */
  putSmsOptIn?(user: UserRef, optIn: SmsOptIn): Promise<void>;
  deleteSmsOptIn?(user: UserRef): Promise<void>;
}

export type PushOutcome =
  | { status: 'sent'; messageId: string }
  /** The provider or SNS says the token is invalid or the endpoint disabled: remove the device. */
  | { status: 'invalid_endpoint'; reason: string }
  /** 429 / 5xx / throttling: leave the job for a retry with backoff. */
  | { status: 'throttled'; reason: string };

/** SNS mobile push: Publish to an endpoint, and the removal of an endpoint the provider called invalid. */
export interface PushProvider {
  deleteEndpoint(endpointArn: string): Promise<void>;
  publish(endpointArn: string, platform: Platform, message: PushMessage): Promise<PushOutcome>;
}

/**
 * The platform endpoints of the devices API. A token has one endpoint per platform application and
 * the endpoint names one owner (SNS CustomUserData): the user who registered the token last. That
 * owner is the only one whose device list holds the token, and the only one who may delete it.
 */
export interface DeviceEndpoints {
  /** Platforms with an SNS platform application (the others answer 400). */
  platforms(): Platform[];
  /** The token's endpoint (created naming `owner` when there is none) and the user it names now (undefined: none readable). */
  findOrCreateEndpoint(platform: Platform, token: string, owner: UserRef): Promise<{ endpointArn: string; owner?: UserRef }>;
  /** Names `owner` in the endpoint and enables it for `token` (nothing to write when it already does). */
  assignEndpoint(endpointArn: string, token: string, owner: UserRef): Promise<void>;
  /** Deletes the endpoint unless it names another user; true when deleted (or already gone). */
  deleteEndpointOf(endpointArn: string, owner: UserRef): Promise<boolean>;
}

export interface PushMessage {
  title: string;
  body: string;
  /** Small custom data (notification id, type, count): the app fetches the content after authentication. */
  data: Record<string, string>;
  /** A notification id for `apns-collapse-id` / FCM collapse key: a repeat replaces, never stacks. */
  collapseKey: string;
}

export type EmailOutcome = { status: 'sent'; messageId: string } | { status: 'throttled'; reason: string } | { status: 'rejected'; reason: string };

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** RFC 8058 one-click unsubscribe URL (`List-Unsubscribe` + `List-Unsubscribe-Post`). */
  unsubscribeUrl: string;
}

/**
 * End User Messaging SMS `SendTextMessage`. `opted_out`: the service refused because the number is
 * on its opt-out list (never retried); `throttled`: retry later; `rejected`: a final refusal.
 */
export type SmsOutcome = { status: 'sent'; messageId: string } | { status: 'opted_out'; reason: string } | { status: 'throttled'; reason: string } | { status: 'rejected'; reason: string };

export interface SmsProvider {
  send(message: { to: string; text: string }): Promise<SmsOutcome>;
}

/**
 * The opt-out list: per number, the last word it said (STOP or START on the inbound topic, or the
 * service answering "opted out"), with when. A change older than the one recorded loses (`stale`):
 * SNS does not deliver inbound texts in order, and a STOP sent after a START must win whichever
 * arrives last; at the same instant an opt-out wins. Throws when the store cannot be read or written.
 */
export interface SmsOptOutList {
  isOptedOut(phoneNumber: string): Promise<boolean>;
  /** The recorded state, if any (consistent read). */
  stateOf(phoneNumber: string): Promise<SmsOptOutState | undefined>;
  optOut(phoneNumber: string, atMs: number, source: 'inbound_stop' | 'provider'): Promise<'recorded' | 'stale'>;
  /** START: the number may be texted again (by the users who opted in with it). */
  optIn(phoneNumber: string, atMs: number): Promise<'recorded' | 'stale'>;
}

export interface SmsOptOutState {
  optedOut: boolean;
  /** When the recorded word was said; absent on records written before it was kept. */
  changedAtMs?: number;
}

/**
 * The service's own opt-out list (End User Messaging SMS `DeleteOptedOutNumber`): `opted_in` the
 * number was on it and is not any more; `not_listed` it was not on it (or the service's opt-in
 * keyword removed it already); `refused` the service keeps it (it lets a number be removed once
 * every 30 days). Throws on throttling and server errors (retried).
 */
export interface SmsServiceOptOuts {
  optIn(phoneNumber: string): Promise<{ status: 'opted_in' | 'not_listed' } | { status: 'refused'; reason: string }>;
}

/**
 * Keyword answers (self-managed opt-outs): at most one answer per number, keyword and UTC day, each
 * counted in the day's texts in all (a flood of HELPs from many numbers costs at most the global
 * limit). `release` gives a claim back after a send that did not happen (throttled).
 */
export interface SmsAnswerGuard {
  admitAnswer(phoneNumber: string, keyword: 'help' | 'stop' | 'start', dayStartMs: number, perDay: number): Promise<'admitted' | 'already_answered' | 'global_limit'>;
  releaseAnswer(phoneNumber: string, keyword: 'help' | 'stop' | 'start', dayStartMs: number): Promise<void>;
}

/**
 * Texts per user per day (each message counted once, however often its record is retried) and in
 * all per day; counted before the send. Throws when a counter cannot be read or written (fail closed).
 */
export interface SmsSpendGuard {
  admit(user: UserRef, dayStartMs: number, messageKey: string, limits: SmsSpendLimits): Promise<'admitted' | 'user_limit' | 'global_limit'>;
}

/** SES v2 SendEmail. */
export interface EmailProvider {
  send(message: EmailMessage): Promise<EmailOutcome>;
}

/**
 * Effectively once per (tenant, notification, recipient, channel[, device]): a conditional put with a
 * 30-day TTL before the send. Throws when the store cannot be read or written (the consumer fails
 * closed: no send, the job is retried).
 */
export interface ChannelDedupStore {
  /** True when this call claimed the send first. */
  claim(key: ChannelSendKey): Promise<boolean>;
  /** Gives a claim back after a send that did not happen (throttled), so the retry sends it. */
  release(key: ChannelSendKey): Promise<void>;
  /**
   * At-least-once types: claims the send as `sending`. `sent`: done before (or an at-most-once claim);
   * `sending`: another attempt holds it and is not yet `staleAfterMs` old (retry later). A claim left
   * `sending` longer than that is taken over: its sender crashed between the claim and the answer.
   */
  claimSending(key: ChannelSendKey, staleAfterMs: number): Promise<SendingClaim>;
  /** At-least-once: the provider answered; the claim is done (`sent`). */
  markSent(key: ChannelSendKey): Promise<void>;
}

export type SendingClaim = 'claimed' | 'sent' | 'sending';

/** At-most-once (a crash between claim and send loses that send) or at-least-once (it is sent again after the claim goes stale). */
export type DeliveryGuarantee = 'at-most-once' | 'at-least-once';

export interface ChannelSendKey extends UserRef {
  notificationId: string;
  channel: Channel;
  /** Push: one claim per device, so a retry after one device was throttled never re-sends to the others. */
  deviceId?: string;
}

/**
 * Messages per user per channel per window, each counted once however often its record is retried
 * (a digest is one message). `counted`: admitted now; `already_counted`: a retry of a message admitted
 * before (send it, it counts no more); `over_limit`: the window holds `limit` messages already.
 */
export interface ChannelRateCounter {
  admitMessage(user: UserRef, channel: Channel, windowStartMs: number, messageKey: string, limit: number, expiresAtSeconds: number): Promise<'counted' | 'already_counted' | 'over_limit'>;
}

/** Post alerts: the followers of an account who turned them on (the bell on a profile). */
export interface AlertSubscriptions {
  subscribe(tenantId: string, accountId: string, followerId: string, atIso: string): Promise<void>;
  unsubscribe(tenantId: string, accountId: string, followerId: string): Promise<void>;
  /** One page of subscribers after `after` (exclusive), in id order; `next` when there are more. */
  listSubscribers(tenantId: string, accountId: string, after: string | undefined, limit: number): Promise<{ followerIds: string[]; next?: string }>;
}
