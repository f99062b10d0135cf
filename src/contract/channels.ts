/** The delivery channels beyond the inbox and the socket, as the REST API names them (preferences, catalog). */
import * as z from 'zod';

export const CHANNELS = ['push', 'email'] as const;
export const channelSchema = z.enum(CHANNELS);
export type Channel = z.infer<typeof channelSchema>;
