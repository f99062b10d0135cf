/**
 * WebSocket client -> server messages (route selection `$request.body.action`; all land on
 * $default). Its own module: the WebSocket functions validate with it without bundling the
 * response schemas of wire-schemas.ts. The server -> client messages are `serverMessageSchema`.
 */
import * as z from 'zod';

export const clientMessageSchema = z.object({ action: z.literal('ping') });
