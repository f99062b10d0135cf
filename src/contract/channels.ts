/** The delivery channels beyond the inbox and the socket, as the REST API names them (preferences, catalog). */
import * as z from 'zod';

export const CHANNELS = ['push', 'email', 'sms'] as const;
export const channelSchema = z.enum(CHANNELS);
export type Channel = z.infer<typeof channelSchema>;

/** A per-type switch beside the channels' own: `escalation` turns the type's escalation off (or on). */
export const CHANNEL_SWITCHES = [...CHANNELS, 'escalation'] as const;
export const channelSwitchSchema = z.enum(CHANNEL_SWITCHES);
export type ChannelSwitch = z.infer<typeof channelSwitchSchema>;
