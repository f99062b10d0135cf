/** The retracted events' notification ids of one reader: what every list and count of theirs leaves out. */
import { idOfEventFor } from '../model/recipient-ids.js';
import { ID_TIME_LENGTH, idLowerBoundAt } from '../model/ids.js';
import type { Comeback } from '../model/notification.js';
import type { Retraction } from '../ports/inbox.js';
import type { UserRef } from '../model/user.js';
import type { FollowedCelebrity } from '../model/followed-pack.js';

/** A tenant's retractions by the millisecond of their ids (the time prefix): built once per list, shared by every read of it. */
export class RetractionIndex {
  private readonly byTimePrefix = new Map<string, Retraction[]>();

  constructor(readonly retractions: readonly Retraction[]) {
    for (const retraction of retractions) {
      const prefix = idLowerBoundAt(retraction.arrivalMs).slice(0, ID_TIME_LENGTH);
      const list = this.byTimePrefix.get(prefix);
      if (list) list.push(retraction);
      else this.byTimePrefix.set(prefix, [retraction]);
    }
  }

  get isEmpty(): boolean {
    return this.retractions.length === 0;
  }

  /** The retractions whose arrival is the millisecond this id carries (the only ones that can have made it). */
  candidatesOf(id: string): readonly Retraction[] | undefined {
    return this.byTimePrefix.get(id.slice(0, ID_TIME_LENGTH));
  }
}

const indexes = new WeakMap<readonly Retraction[], RetractionIndex>();

/** The index of a list (a cached list is indexed once, not per read). */
export function retractionIndexOf(retractions: readonly Retraction[]): RetractionIndex {
  let index = indexes.get(retractions);
  if (!index) {
    index = new RetractionIndex(retractions);
    indexes.set(retractions, index);
  }
  return index;
}

/**
 * This user's notification ids of the retracted events: own inbox ids and the followed feeds' ids.
 * Nothing is hashed up front: an id is compared only with the retractions of its millisecond, so a
 * read's cost follows the ids it checks, not the tenant's retraction history or k.
 */
export class RetractedIds {
  private readonly index: RetractionIndex;
  private readonly answers = new Map<string, boolean>();

  constructor(
    private readonly user: UserRef,
    private readonly celebrities: readonly FollowedCelebrity[],
    retractions: readonly Retraction[],
  ) {
    this.index = retractionIndexOf(retractions);
  }

  get isEmpty(): boolean {
    return this.index.isEmpty;
  }

  /** An own item or a followed feed's item of a retracted event. */
  has(id: string): boolean {
    const known = this.answers.get(id);
    if (known !== undefined) return known;
    const candidates = this.index.candidatesOf(id);
    const answer = candidates !== undefined && candidates.some((retraction) => this.ownId(retraction) === id || this.celebrities.some((celebrity) => this.feedId(retraction, celebrity.celebrityId) === id));
    this.answers.set(id, answer);
    return answer;
  }

  /** A notification of a known source (own, or one celebrity's feed) whose event is retracted: no other feed is hashed. */
  hasOf(id: string, actorId: string | undefined): boolean {
    const candidates = this.index.candidatesOf(id);
    if (candidates === undefined) return false;
    return candidates.some((retraction) => (actorId === undefined ? this.ownId(retraction) : this.feedId(retraction, actorId)) === id);
  }

  /** A snooze comeback goes with its root's event. */
  hasComeback(comeback: Comeback): boolean {
    return this.hasOf(comeback.rootId, comeback.rootActor);
  }

  private ownId(retraction: Retraction): string {
    return idOfEventFor(this.user.tenantId, retraction, { userId: this.user.userId });
  }

  private feedId(retraction: Retraction, actorId: string): string {
    return idOfEventFor(this.user.tenantId, retraction, { actorId });
  }
}
