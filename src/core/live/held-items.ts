/**
 * A fired release's held pushes read back: a hold keeps references (notification id and where it
 * lives), never copies, so the release reads the items again (one BatchGetItem per 100): a
 * notification deleted meanwhile (its author erased, a retraction, retention) is not pushed. Holds
 * written before references copied the notification whole: those are pushed as they are.
 */
import type { Notification, StoredNotification } from '../model/notification.js';
import { isExpired } from '../model/notification.js';
import type { UserRef } from '../model/user.js';
import type { InboxReader } from '../ports/inbox.js';
import type { HeldPush, LegacyHeldPush, StoredHeldPush } from '../ports/live.js';

/** Reads held items by id, and the action links a notification shows (from its type). */
export interface HeldItemsDeps {
  items?: Pick<InboxReader, 'getItems'>;
  linksOf?: (item: StoredNotification) => Pick<Notification, 'actionUrl' | 'actions'>;
}

export interface ResolvedHeldPush {
  push: StoredHeldPush;
  notification: Notification;
}

/** The celebrity posts log shard a held celebrity post is read from (every shard holds every post). */
const CELEBRITY_LOG_SHARD = 0;

export function isLegacyHeldPush(push: StoredHeldPush): push is LegacyHeldPush {
  return (push as Partial<LegacyHeldPush>).notification !== undefined;
}

export function heldPushId(push: StoredHeldPush): string {
  return isLegacyHeldPush(push) ? push.notification.id : push.id;
}

/** The held pushes whose items still exist (unexpired), with their notification; `gone` are the rest. */
export async function resolveHeldPushes(deps: HeldItemsDeps, user: UserRef, held: readonly StoredHeldPush[], nowMs: number): Promise<{ resolved: ResolvedHeldPush[]; gone: HeldPush[] }> {
  const refs = held.filter((push): push is HeldPush => !isLegacyHeldPush(push));
  const found = refs.length > 0 && deps.items
    ? await deps.items.getItems(refs.map((push) => ({ id: push.id, source: push.source === 'own' ? { kind: 'own' as const, ...user } : { kind: 'celebrityLog' as const, tenantId: user.tenantId, shard: CELEBRITY_LOG_SHARD } })))
    : new Map<string, StoredNotification>();
  const resolved: ResolvedHeldPush[] = [];
  const gone: HeldPush[] = [];
  for (const push of held) {
    if (isLegacyHeldPush(push)) {
      resolved.push({ push, notification: push.notification });
      continue;
    }
    const item = found.get(push.id);
    if (!item || isExpired(item, nowMs)) gone.push(push);
    else resolved.push({ push, notification: { id: item.id, type: item.type, createdAt: item.createdAt, read: false, seen: false, actor: item.actor, title: item.title, body: item.body, data: item.data, ...deps.linksOf?.(item) } });
  }
  return { resolved, gone };
}
