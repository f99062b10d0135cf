/**
 * This device's per-item actions in flight. The server pushes each change to every connection of
 * the user, this one included, in the order it made them; the action's own answer travels apart and
 * may come after pushes of later changes (this device's next action, another device's). So an answer
 * whose change was already pushed is not applied again: the push put it in its place in that order.
 */
import type { ItemAction } from './types.js';

export interface OwnAction {
  readonly action: ItemAction | 'snooze';
  readonly ids: ReadonlySet<string>;
  /** Its change came by push (the push applied it). */
  pushed: boolean;
}

export class OwnActions {
  private readonly inFlight: OwnAction[] = [];

  /** An action sent (before its request). */
  begin(action: ItemAction | 'snooze', ids: readonly string[]): OwnAction {
    const entry: OwnAction = { action, ids: new Set(ids), pushed: false };
    this.inFlight.push(entry);
    return entry;
  }

  /** Answered or failed: no longer in flight. */
  end(entry: OwnAction): void {
    const index = this.inFlight.indexOf(entry);
    if (index >= 0) this.inFlight.splice(index, 1);
  }

  /** A push of a change: the oldest action in flight it can be (same action, ids among those sent) is marked pushed. */
  pushed(action: ItemAction | 'snooze', ids: readonly string[]): void {
    const entry = this.inFlight.find((candidate) => !candidate.pushed && candidate.action === action && ids.length > 0 && ids.every((id) => candidate.ids.has(id)));
    if (entry) entry.pushed = true;
  }
}
