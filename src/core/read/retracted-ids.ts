/** The retracted events' notification ids of one reader: what every list and count of theirs leaves out. */
import { feedRecipient, recipientNotificationId } from '../model/recipient-ids.js';
import { ID_TIME_LENGTH, idLowerBoundAt, notificationId } from '../model/ids.js';
import type { Retraction } from '../ports/inbox.js';
import type { UserRef } from '../model/user.js';
import type { FollowedCelebrity } from '../model/followed-pack.js';

/**
 * This user's notification ids of the retracted events: own inbox ids (one per retraction) and the
 * followed feeds' ids. A feed id is one hash per (retraction, celebrity): computed only for a
 * retraction whose arrival millisecond (the ids' time prefix) an asked id carries, once per read, so a
 * read's cost does not grow with retractions x followed celebrities.
 */
export class RetractedIds {
  private readonly own: ReadonlySet<string>;
  private readonly byTimePrefix = new Map<string, Retraction[]>();
  private readonly feedIds = new Map<Retraction, ReadonlySet<string>>();

  constructor(
    private readonly user: UserRef,
    private readonly celebrities: readonly FollowedCelebrity[],
    retractions: readonly Retraction[],
  ) {
    this.own = new Set(retractions.map((retraction) => recipientNotificationId(user.tenantId, retraction.type, retraction.eventId, user.userId, retraction.arrivalMs)));
    for (const retraction of retractions) {
      const prefix = idLowerBoundAt(retraction.arrivalMs).slice(0, ID_TIME_LENGTH);
      this.byTimePrefix.set(prefix, [...(this.byTimePrefix.get(prefix) ?? []), retraction]);
    }
  }

  /** Retracted ids the own inbox can hold: at most one per retraction. */
  get ownCount(): number {
    return this.own.size;
  }

  get isEmpty(): boolean {
    return this.own.size === 0;
  }

  has(id: string): boolean {
    if (this.own.has(id)) return true;
    const candidates = this.byTimePrefix.get(id.slice(0, ID_TIME_LENGTH));
    return candidates !== undefined && candidates.some((retraction) => this.feedIdsOf(retraction).has(id));
  }

  private feedIdsOf(retraction: Retraction): ReadonlySet<string> {
    let ids = this.feedIds.get(retraction);
    if (!ids) {
      const { tenantId } = this.user;
      ids = new Set(this.celebrities.map((celebrity) => notificationId({ tenantId, type: retraction.type, eventId: retraction.eventId, recipient: feedRecipient(celebrity.celebrityId), timeMs: retraction.arrivalMs })));
      this.feedIds.set(retraction, ids);
    }
    return ids;
  }
}
