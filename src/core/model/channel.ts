/**
 * Delivery channels beyond the socket: mobile push (SNS mobile push: APNs, FCM) and email (SES v2).
 * A catalog type offers a channel by declaring it with its default (on or off); a user's per-type,
 * per-channel switch in `PUT /preferences` overrides that default. Push also needs consent.
 */
import type { Channel, ChannelSwitch } from '../../contract/channels.js';

/** Per type: the channels it offers and whether each is on for users who never switched it. */
export type ChannelDefaults = Partial<Record<Channel, boolean>>;

/** A user's switches: type -> channel -> on/off (absent = the type's default). */
export type ChannelSwitches = Record<string, Partial<Record<ChannelSwitch, boolean>>>;

export interface ChannelOffer {
  channels?: ChannelDefaults;
}

export function offersChannel(type: ChannelOffer | undefined, channel: Channel): boolean {
  return type?.channels?.[channel] !== undefined;
}

/** Whether the user gets this type on this channel: their switch, else the type's default; never a channel the type does not offer. */
export function channelSwitchedOn(type: ChannelOffer | undefined, switches: ChannelSwitches | undefined, typeName: string, channel: Channel): boolean {
  if (!offersChannel(type, channel)) return false;
  return switches?.[typeName]?.[channel] ?? type!.channels![channel]!;
}

/** What a catalog type declares to escalate (core/channels/escalation.ts decides at fire time). */
export interface EscalationRule {
  /** The channel it escalates to (the type must offer it). */
  channel: Channel;
  /** After how long (from the notification's arrival); 1 s to 7 days. */
  afterSeconds: number;
  /** `unseen`: send unless it was seen (the bell opened, seen-all, read); `unread`: send unless it was read. */
  when: 'unseen' | 'unread';
}

export const MAX_ESCALATION_SECONDS = 7 * 86_400;
