/**
 * The reference model of the follow graph and of each user's post view (issue 26), by arrival.
 *
 * Arrival: a follow or an unfollow arrives when the system accepts it (its intake record's
 * SentTimestamp, the first copy the fan-out stamps); a post arrives when the fan-out stamps it (the
 * time part of its ids). Records of one pair are ordered by arrival; at the same millisecond an
 * unfollow is the later one. The pair's state at time t is the kind of its latest record at or
 * before t (a record at t counts: a post at the follow's millisecond is in view, at the unfollow's
 * it is not).
 *
 * What a user must see, and what they may see while records are still in flight:
 * - an ordinary-tier post (fanned out to inboxes): in view once the post is processed if the pair
 *   follows at the post's arrival and the follow that decides it is processed. It stays (an inbox
 *   item is never withdrawn); a post the system delivered while an earlier-arrived unfollow was not
 *   processed yet is allowed (`mayOwn`), never required;
 * - a celebrity-tier post (written to the author's feed): in view while the pair follows, from the
 *   start of the current follow run (the first follow after the last unfollow), by the records
 *   processed so far; unknown while a record of the pair or a promotion pass of the author runs;
 * - the "followed you" notification of every processed follow, to the followee.
 * Every post in view exactly once.
 */

export type RecordKind = 'follow' | 'unfollow' | 'post';
export type EventStatus = 'pending' | 'started' | 'done';
export type PostMode = 'ordinary' | 'celebrity';

export interface ModelEvent {
  eventId: string;
  kind: RecordKind;
  /** The follower (follow, unfollow) or the author (post). */
  actor: string;
  followee?: string;
  /** SentTimestamp of every published copy (a duplicate publish is a new copy). */
  copies: number[];
  /** SentTimestamps of the copies some attempt started on. */
  attemptedCopies: Set<number>;
  status: EventStatus;
  /** The follow's or unfollow's arrival, as the system recorded it (the first copy stamped). */
  intakeMs?: number;
  /** The arrival stamp of the event's ids (a post's arrival). */
  stampMs?: number;
  /** How a post was fanned out, as the store shows it (both = a defect the view check reports). */
  modes: Set<PostMode>;
}

/** Order of records at one millisecond: the unfollow is the later one. */
const KIND_RANK: Record<RecordKind, number> = { follow: 0, unfollow: 1, post: 2 };

export interface Expectation {
  must: Set<string>;
  may: Set<string>;
}

export class FollowModel {
  readonly events = new Map<string, ModelEvent>();
  /** Posts delivered (or possibly delivered) into a user's inbox while a pair looked followed: allowed to stay. */
  private readonly mayOwn = new Map<string, Set<string>>();
  /** Promotion pass messages of an account not yet processed. */
  readonly promotionsOpen = new Map<string, number>();

  constructor(readonly users: readonly string[]) {}

  publish(event: Omit<ModelEvent, 'attemptedCopies' | 'status' | 'modes'>): ModelEvent {
    const created: ModelEvent = { ...event, attemptedCopies: new Set(), status: 'pending', modes: new Set() };
    this.events.set(event.eventId, created);
    return created;
  }

  pairRecords(follower: string, followee: string): ModelEvent[] {
    return [...this.events.values()].filter((event) => event.kind !== 'post' && event.actor === follower && event.followee === followee);
  }

  posts(): ModelEvent[] {
    return [...this.events.values()].filter((event) => event.kind === 'post');
  }

  /** The arrival times a record may have: its recorded intake, else any copy's (an attempt may stamp any of them). */
  private intakeCandidates(record: ModelEvent): number[] {
    return record.intakeMs !== undefined ? [record.intakeMs] : record.copies;
  }

  /** True when (aMs, a) is at or before (bMs, b) in arrival order. */
  private static notAfter(aMs: number, a: RecordKind, bMs: number, b: RecordKind): boolean {
    return aMs < bMs || (aMs === bMs && KIND_RANK[a] <= KIND_RANK[b]);
  }

  /** The latest of these records (known intake) at or before `atMs`: the pair's state then. */
  private latestAt(records: readonly ModelEvent[], atMs: number): ModelEvent | undefined {
    let latest: ModelEvent | undefined;
    for (const record of records) {
      if (record.intakeMs === undefined || record.intakeMs > atMs) continue;
      if (!latest || FollowModel.notAfter(latest.intakeMs!, latest.kind, record.intakeMs, record.kind)) latest = record;
    }
    return latest;
  }

  /**
   * An ordinary-tier post's delivery to `follower` is required: the latest record of the pair at the
   * post's arrival (over every record that arrived, processed or not) is a processed follow, and no
   * record whose arrival is still unknown could come between it and the post.
   */
  ownRequired(follower: string, author: string, postMs: number): boolean {
    const records = this.pairRecords(follower, author);
    const latest = this.latestAt(records, postMs);
    if (!latest || latest.kind !== 'follow' || latest.status !== 'done') return false;
    return !records.some(
      (record) =>
        record.intakeMs === undefined &&
        record.copies.some((copyMs) => copyMs <= postMs && FollowModel.notAfter(latest.intakeMs!, latest.kind, copyMs, record.kind)),
    );
  }

  /**
   * An ordinary-tier post may have been delivered to `follower`: some follow that was attempted or
   * processed (at any arrival it may carry) is at or before the post, and no unfollow processed
   * before the step (`processedBefore`) lies between the two.
   */
  ownPossible(follower: string, author: string, postMs: number, processedBefore: ReadonlySet<string>): boolean {
    const records = this.pairRecords(follower, author);
    const blockers = records.filter((record) => record.kind === 'unfollow' && processedBefore.has(record.eventId) && record.intakeMs !== undefined);
    return records.some(
      (record) =>
        record.kind === 'follow' &&
        record.status !== 'pending' &&
        this.intakeCandidates(record).some(
          (followMs) =>
            followMs <= postMs &&
            !blockers.some((unfollow) => FollowModel.notAfter(followMs, 'follow', unfollow.intakeMs!, 'unfollow') && unfollow.intakeMs! <= postMs),
        ),
    );
  }

  /** The processed records of the pair: following now, and since when (the current follow run's start). */
  appliedRun(follower: string, followee: string): { following: boolean; runStartMs?: number } {
    const done = this.pairRecords(follower, followee)
      .filter((record) => record.status === 'done' && record.intakeMs !== undefined)
      .sort((a, b) => a.intakeMs! - b.intakeMs! || KIND_RANK[a.kind] - KIND_RANK[b.kind]);
    const last = done.at(-1);
    if (!last || last.kind !== 'follow') return { following: false };
    let start = last.intakeMs!;
    for (let index = done.length - 1; index >= 0 && done[index]!.kind === 'follow'; index -= 1) start = done[index]!.intakeMs!;
    return { following: true, runStartMs: start };
  }

  /** A feed post's visibility to `follower` is decided: no record of the pair and no promotion pass of the author is in flight or waiting. */
  feedDecided(follower: string, author: string): boolean {
    return (this.promotionsOpen.get(author) ?? 0) === 0 && !this.pairRecords(follower, author).some((record) => record.status === 'started');
  }

  /** Records the may-deliveries of a processing step, for the posts and pairs it touched. */
  noteStep(touched: ReadonlySet<string>, processedBefore: ReadonlySet<string>): void {
    for (const post of this.posts()) {
      if (!post.modes.has('ordinary') || post.stampMs === undefined) continue;
      for (const user of this.users) {
        if (user === post.actor) continue;
        const pairTouched = this.pairRecords(user, post.actor).some((record) => touched.has(record.eventId));
        if (!touched.has(post.eventId) && !pairTouched) continue;
        if (this.ownPossible(user, post.actor, post.stampMs, processedBefore)) this.mayOf(user).add(post.eventId);
      }
    }
  }

  private mayOf(user: string): Set<string> {
    let set = this.mayOwn.get(user);
    if (!set) this.mayOwn.set(user, (set = new Set()));
    return set;
  }

  /** What `user`'s view must and may hold, by event id. */
  expectedView(user: string): Expectation {
    const must = new Set<string>();
    const may = new Set(this.mayOwn.get(user) ?? []);
    for (const event of this.events.values()) {
      if (event.kind === 'follow' && event.followee === user) {
        if (event.status === 'done') must.add(event.eventId);
        else if (event.status === 'started') may.add(event.eventId);
        continue;
      }
      if (event.kind !== 'post' || event.actor === user) continue;
      if (event.modes.has('ordinary') && event.status === 'done' && event.stampMs !== undefined && this.ownRequired(user, event.actor, event.stampMs)) must.add(event.eventId);
      if (event.modes.has('celebrity') && event.stampMs !== undefined) {
        const run = this.appliedRun(user, event.actor);
        const inRun = run.following && event.stampMs >= run.runStartMs!;
        if (event.status === 'done' && this.feedDecided(user, event.actor)) {
          if (inRun) must.add(event.eventId);
        } else may.add(event.eventId);
      }
    }
    for (const eventId of must) may.delete(eventId);
    return { must, may };
  }

  /** Every pair's applied state, for the graph checks at quiescence. */
  followersOf(followee: string): Map<string, number> {
    const followers = new Map<string, number>();
    for (const user of this.users) {
      const run = this.appliedRun(user, followee);
      if (run.following) followers.set(user, run.runStartMs!);
    }
    return followers;
  }
}
