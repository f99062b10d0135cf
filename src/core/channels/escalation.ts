/**
 * Escalation: a type may ask that a notification still unseen (or unread) some time after it
 * arrived goes out on another channel (an email 15 minutes after an unseen mention). The fan-out
 * puts the job on that channel's queue with a delay; at fire time the channel consumer reads the
 * recipient's marks item and the notification's exception (and the event's retraction record) once
 * and decides here. Nothing is written when the user reads, archives or deletes meanwhile, nor on
 * read-all or a retraction: the check at fire time sees it (docs/channels.md#escalation).
 */
import type { EscalationRule } from '../model/channel.js';
import { timeOfId } from '../model/ids.js';
import { isArchived, isHidden, isRead, isSeen, type ReadState } from '../model/read-state.js';
import type { UserRef } from '../model/user.js';

export { MAX_ESCALATION_SECONDS, type EscalationRule } from '../model/channel.js';

/** What a delayed escalation job carries (signed with the job): when it is due and the condition. */
export interface EscalationMark {
  dueAtMs: number;
  when: EscalationRule['when'];
}

/** `due`: send; `seen` / `read`: skipped (the user got it); the rest cancelled it (archived, deleted, snoozed, retracted). */
export type EscalationVerdict = 'due' | 'seen' | 'read' | 'archived' | 'deleted' | 'snoozed' | 'retracted';

/**
 * The decision at fire time for notification `id`, from the user's marks and its exception (in
 * `state`) and whether its event was retracted. Read marks decide as they do for the inbox itself.
 */
export function escalationVerdict(id: string, state: ReadState, retracted: boolean, when: EscalationRule['when']): EscalationVerdict {
  if (retracted) return 'retracted';
  const exception = state.exceptions.get(id);
  if (exception?.deleted) return 'deleted';
  if (isHidden(id, state)) return 'snoozed';
  if (isRead(id, state)) return 'read';
  if (isArchived(id, state)) return 'archived';
  if (when === 'unseen' && isSeen(id, state)) return 'seen';
  return 'due';
}

/** When the escalation of a job of notifications stamped at these ids is due (the latest arrival + delay). */
export function escalationDueAtMs(notificationIds: readonly string[], afterSeconds: number): number {
  return Math.max(...notificationIds.map(timeOfId)) + afterSeconds * 1000;
}

/** One notification an escalation checks. */
export interface EscalationCheck {
  notificationId: string;
  type: string;
  eventId: string;
}

/**
 * The state an escalation reads, per user: the marks item, the exceptions of the ids, and which of
 * them were retracted; one request per user whatever the inbox size (BatchGetItem on AWS).
 */
export interface EscalationStateReader {
  escalationState(user: UserRef, checks: readonly EscalationCheck[]): Promise<{ state: ReadState; retracted: ReadonlySet<string> }>;
}
