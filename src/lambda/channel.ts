/** Lambda entry: consumer of one channel queue (`CHANNEL=push|email`). Wiring: src/app/channels.ts. */
import { channelFunction } from '../app/channels.js';

export const handler = channelFunction(process.env);
