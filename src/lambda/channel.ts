/**
 * Lambda entry: consumer of one channel queue (`CHANNEL=push|email`). Wiring: src/app/channels.ts.
 * Entries of optional features live here, off the top-level entry list every default app wires.
 */
import { channelFunction } from '../app/channels.js';

export const handler = channelFunction(process.env);
