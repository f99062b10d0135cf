/**
 * Action links of a notification (`actionUrl` and up to two buttons), sanitized where they are
 * shown: only http and https URLs (never `javascript:`, `data:` or a relative path a page could
 * resolve), bounded labels, action ids of plain characters. Anything else is dropped, not fixed.
 */
import type { Notification, NotificationAction } from '../../contract/wire.js';

export const MAX_ACTIONS = 2;
const MAX_URL_LENGTH = 2_048;
const MAX_LABEL_LENGTH = 40;
const ACTION_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

export function isSafeLinkUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

interface RawLinks {
  actionUrl?: unknown;
  actions?: unknown;
}

function sanitizeAction(raw: unknown): NotificationAction | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { label, url, actionId } = raw as Record<string, unknown>;
  if (typeof label !== 'string' || label.trim() === '' || label.length > MAX_LABEL_LENGTH) return undefined;
  if (typeof url === 'string' && isSafeLinkUrl(url)) return { label: label.trim(), url };
  if (typeof actionId === 'string' && ACTION_ID.test(actionId)) return { label: label.trim(), actionId };
  return undefined;
}

/** The safe part of what a type declares; `{}` when nothing is safe. */
export function sanitizeLinks(raw: RawLinks | undefined): Pick<Notification, 'actionUrl' | 'actions'> {
  if (!raw) return {};
  const actionUrl = typeof raw.actionUrl === 'string' && isSafeLinkUrl(raw.actionUrl) ? raw.actionUrl : undefined;
  const actions = Array.isArray(raw.actions) ? raw.actions.slice(0, MAX_ACTIONS).map(sanitizeAction).filter((action) => action !== undefined) : [];
  return { ...(actionUrl !== undefined ? { actionUrl } : {}), ...(actions.length > 0 ? { actions } : {}) };
}
