/**
 * The commands of the inbox-view model run: each one acts on the reference model and on the real
 * system, compares their answers, then compares every view (pages walked by cursor with and without
 * filters, `since`, counts and tab counts) — all of them on the in-memory ports, a rotating few on
 * dynalite. Commands pick their targets (an id, an event) by index at run time, so a shrunk
 * sequence stays meaningful and prints as the code that replays it.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { NotificationEvent } from '../../../src/core/fanout/events.js';
import { idLowerBoundAt, timeOfId } from '../../../src/core/model/ids.js';
import type { Notification } from '../../../src/core/model/notification.js';
import type { UserRef } from '../../../src/core/model/user.js';
import type { Backend } from './backend.js';
import { eventKey, InboxViewModel, type ItemAction, type ModelFilter, type ModelItem } from './model.js';
import { InboxSystem, TTL_DAYS, type FanOutFault, type SnoozeFault } from './system.js';
import { CLIENT_CONNECTION, ClientUnderTest, compareClient, type ClientAction, type ClientActionOutcome, type ClientOp } from './client.js';

const DAY = 86_400_000;
export const T_START = Date.UTC(2026, 2, 1, 9);
const OWN_TYPES = ['mention.created', 'comment.created'] as const;
const POST_TYPE = 'post.published';
const EVENTS_PER_KIND = 6;

/** How many celebrities the user follows: none, a few (feed heads), or more than 100 (the celebrity posts log). */
export type FollowShape = 0 | 2 | 101;

export interface Scenario {
  follows: FollowShape;
  /** Check every view after every step (in memory), or a rotating few (dynalite). */
  fullChecks: boolean;
  /** A client SDK store on one of the user's connections (`client.ts`), started at the beginning. */
  client?: boolean;
}

/** What the harness knows of each producer event (by type + event id): the arrival clock's record of it, and the user's item. */
interface EventRecord {
  type: string;
  eventId: string;
  /** `own` or the posting celebrity. */
  source: string;
  /** The stamp the arrival clock holds (taken by an attempt or by the retraction). */
  stampMs?: number;
  /** Something of the event landed under the stamp: later attempts keep it. */
  landedSomething?: boolean;
  retracted?: boolean;
  /** The user's item landed (its id). */
  landedId?: string;
  /** An own event's recipients besides the user, fixed by its first attempt (a retry carries the same event). */
  withOther?: boolean;
  /** The last attempt was killed: the queue delivers the event again (a settled client waits for it). */
  redelivery?: fc.AsyncCommand<ModelState, RealState>;
}

/** The clock's record past the inbox TTL (whole seconds, as the TTL attribute is) is gone. */
function expireStamp(record: EventRecord, nowMs: number, ttlMs: number): void {
  if (record.stampMs !== undefined && Math.floor(nowMs / 1000) >= Math.floor(record.stampMs / 1000) + ttlMs / 1000) {
    for (const field of ['stampMs', 'landedSomething', 'retracted', 'landedId'] as const) delete record[field];
  }
}

/**
 * The arrival clock as an attempt at `nowMs` finds it: a record past the inbox TTL is gone (a replay is
 * a new arrival); a retracted event writes nothing; a stamp something landed under is kept; a stamp
 * nothing landed under (an attempt that died before writing) is replaced by now.
 */
function stampFor(record: EventRecord, nowMs: number, ttlMs: number): number | 'retracted' {
  expireStamp(record, nowMs, ttlMs);
  if (record.retracted) return 'retracted';
  if (record.stampMs === undefined || !record.landedSomething) record.stampMs = nowMs;
  return record.stampMs;
}

export class ModelState {
  readonly events = new Map<string, EventRecord>();
  /** Ids a reader may or may not see (an unfinished celebrity post): left out of every comparison. */
  readonly unknown = new Set<string>();
  checks = 0;
  constructor(readonly view: InboxViewModel) {}
}

export class RealState {
  private clockMs: number;
  readonly clock = { nowMs: () => this.clockMs };
  readonly sys: InboxSystem;
  readonly client: ClientUnderTest | undefined;
  constructor(
    build: (clock: { nowMs(): number }) => InboxSystem,
    readonly scenario: Scenario,
    startMs: number,
  ) {
    this.clockMs = startMs;
    this.sys = build(this.clock);
    this.client = scenario.client ? new ClientUnderTest(this.sys, this.clock.nowMs) : undefined;
  }
  advance(ms: number): void {
    this.clockMs += ms;
  }
}

export const OTHER_USER = 'v';
export const CELEBRITIES = ['star-a', 'star-b'];
/** Posts, never followed by the user: they must never show. */
export const UNFOLLOWED_CELEBRITY = 'star-x';

/** A fresh tenant per run, the user following `follows` celebrities (two of them post). */
export async function setupRun(backend: Backend, scenario: Scenario, run: number): Promise<{ model: ModelState; real: RealState }> {
  const user: UserRef = { tenantId: `m${run}-${Math.random().toString(36).slice(2, 8)}`, userId: 'u' };
  const startMs = T_START + run * 1_000;
  const followed = scenario.follows === 0 ? [] : scenario.follows === 2 ? CELEBRITIES : [...CELEBRITIES, ...Array.from({ length: 99 }, (_, i) => `quiet-${i}`)];
  const followedAtMs = startMs - DAY / 2;
  await backend.seed(user, followed, followedAtMs);
  await backend.seed({ ...user, userId: 'nobody' }, [UNFOLLOWED_CELEBRITY], followedAtMs);
  const real = new RealState((clock) => new InboxSystem(backend, user, clock, [CLIENT_CONNECTION, 'conn-b'], followed, scenario.client ?? false), scenario, startMs);
  real.client?.start();
  const view = new InboxViewModel({ tenantId: user.tenantId, userId: user.userId, ttlMs: TTL_DAYS * DAY }, startMs);
  for (const celebrityId of followed) view.follow(celebrityId, followedAtMs);
  const model = new ModelState(view);
  if (real.client) real.client.serveAction = (action) => serveDeviceAction(model, real, action);
  return { model, real };
}

/** A device action served now: run on the model and on the real core, their answers compared, then the views. */
async function serveDeviceAction(model: ModelState, real: RealState, action: ClientAction): Promise<ClientActionOutcome> {
  let outcome: ClientActionOutcome;
  if (action.kind === 'readAll' || action.kind === 'seenAll') {
    const wanted = action.kind === 'readAll' ? model.view.readAll(action.upTo) : model.view.seenAll(action.upTo);
    const got = action.kind === 'readAll' ? await real.sys.readAll(action.upTo) : await real.sys.seenAll(action.upTo);
    expect(got, `device ${action.kind} up to ${action.upTo}`).toEqual(wanted);
    outcome = { status: 200, body: got };
  } else if (action.kind === 'archiveRead') {
    model.view.archiveRead();
    outcome = { status: 200, body: await real.sys.archiveRead() };
  } else if (action.kind === 'item') {
    const wanted = model.view.act(action.action, action.id);
    const got = await real.sys.act(action.action, action.id);
    expect(got, `device ${action.action} ${action.id}`).toBe(wanted);
    outcome = got === 'ok' ? { status: 200, body: undefined } : { status: 404 };
  } else if (action.kind === 'bulk') {
    const wanted = model.view.bulk(action.action, action.ids);
    const got = await real.sys.bulk(action.action, action.ids);
    expect({ updated: [...got.updated].sort(), notFound: [...got.notFound].sort() }, `device bulk ${action.action}`).toEqual({ updated: [...wanted.updated].sort(), notFound: [...wanted.notFound].sort() });
    outcome = { status: 200, body: got };
  } else throw new Error(`unknown device action ${JSON.stringify(action)}`);
  await compareViews(model, real);
  return outcome;
}

// ---------------------------------------------------------------- comparisons

const present = (item: Notification) => `${item.id}:${item.type}:${item.read ? 'R' : 'r'}${item.seen ? 'S' : 's'}${item.archived ? 'A' : ''}`;
const expected = (item: ModelItem) => `${item.id}:${item.type}:${item.read ? 'R' : 'r'}${item.seen ? 'S' : 's'}${item.archived ? 'A' : ''}`;

const FILTERS: { name: string; filter?: ModelFilter }[] = [
  { name: 'list' },
  { name: 'unread', filter: { read: false } },
  { name: 'read', filter: { read: true } },
  { name: 'archive', filter: { archived: true } },
  { name: 'mentions', filter: { types: ['mention.created'] } },
  { name: 'posts+comments', filter: { types: [POST_TYPE, 'comment.created'] } },
];

async function compareWalk(model: ModelState, real: RealState, name: string, filter: ModelFilter | undefined, limit: number, since?: string): Promise<void> {
  const asked = filter ? { ...(filter.read !== undefined ? { read: filter.read } : {}), ...(filter.archived !== undefined ? { archived: filter.archived } : {}), ...(filter.types ? { types: [...filter.types] } : {}) } : undefined;
  const { pages } = await real.sys.walk({ limit, ...(since !== undefined ? { since } : {}), ...(asked ? { filter: asked } : {}) });
  for (const page of pages) expect(page.length, `${name}: a page holds at most ${limit}`).toBeLessThanOrEqual(limit);
  const got = pages.flat().filter((item) => !model.unknown.has(item.id)).map(present);
  const wanted = (since !== undefined ? model.view.since(since, filter) : model.view.list(filter)).filter((item) => !model.unknown.has(item.id)).map(expected);
  expect(got, `${name}${since !== undefined ? ` since ${since}` : ''} (limit ${limit})`).toEqual(wanted);
}

async function compareCounts(model: ModelState, real: RealState, types?: readonly string[]): Promise<void> {
  const got = await real.sys.counts(types);
  const wanted = model.view.counts(types);
  if (model.unknown.size === 0) {
    expect(got, `counts${types ? ` of ${types.join(',')}` : ''}`).toEqual(wanted);
    return;
  }
  // An unfinished post may or may not be counted.
  expect(got.unread, 'unread (with unfinished posts)').toBeGreaterThanOrEqual(wanted.unread);
  expect(got.unread, 'unread (with unfinished posts)').toBeLessThanOrEqual(Math.min(99, wanted.unread + model.unknown.size));
}

/** After every step: the views on the in-memory ports, a rotating few on dynalite. */
export async function compareViews(model: ModelState, real: RealState): Promise<void> {
  const step = (model.checks += 1);
  const limit = 1 + (step % 4);
  const since = pickSinceId(model, step);
  if (real.scenario.fullChecks) {
    for (const { name, filter } of FILTERS) await compareWalk(model, real, name, filter, limit);
    await compareWalk(model, real, 'since', undefined, limit, since);
    await compareCounts(model, real);
    await compareCounts(model, real, ['mention.created']);
    return;
  }
  // dynalite: the first page of one filter and the counts per step; every view once at the end of the run.
  const { name, filter } = FILTERS[step % FILTERS.length]!;
  await compareFirstPage(model, real, name, filter, 3 + (step % 3), step % 4 === 0 ? since : undefined);
  await compareCounts(model, real, step % 5 === 0 ? ['mention.created'] : undefined);
}

/** Every view walked in full (the end of a dynalite run). */
export async function compareAllViews(model: ModelState, real: RealState): Promise<void> {
  for (const { name, filter } of FILTERS) await compareWalk(model, real, name, filter, 3);
  await compareWalk(model, real, 'since', undefined, 3, pickSinceId(model, model.checks));
  await compareCounts(model, real);
  await compareCounts(model, real, ['mention.created']);
}

async function compareFirstPage(model: ModelState, real: RealState, name: string, filter: ModelFilter | undefined, limit: number, since?: string): Promise<void> {
  const asked = filter ? { ...(filter.read !== undefined ? { read: filter.read } : {}), ...(filter.archived !== undefined ? { archived: filter.archived } : {}), ...(filter.types ? { types: [...filter.types] } : {}) } : undefined;
  const page = await real.sys.firstPage({ limit, ...(since !== undefined ? { since } : {}), ...(asked ? { filter: asked } : {}) });
  const got = page.items.filter((item) => !model.unknown.has(item.id)).map(present);
  const wanted = (since !== undefined ? model.view.since(since, filter) : model.view.list(filter)).filter((item) => !model.unknown.has(item.id)).map(expected);
  expect(got, `${name}: first page (limit ${limit})`).toEqual(wanted.slice(0, got.length));
  if (model.unknown.size === 0) expect(got.length, `${name}: first page length`).toBe(Math.min(limit, wanted.length));
}

function pickSinceId(model: ModelState, step: number): string {
  const ids = [...model.view.items.keys()].sort();
  if (ids.length === 0) return idLowerBoundAt(model.view.nowMs - DAY);
  return ids[step % ids.length]!;
}

// ---------------------------------------------------------------- targets

/** Every id the model knows (visible or not) plus one nobody has: a command picks among them by index. */
function candidateIds(model: ModelState): string[] {
  return [...[...model.view.items.keys()].filter((id) => !model.unknown.has(id)).sort(), '01KA0000000000000000000000'];
}

function pickId(model: ModelState, pick: number): string {
  const ids = candidateIds(model);
  return ids[pick % ids.length]!;
}

// ---------------------------------------------------------------- arrivals

function ownEvent(real: RealState, type: string, eventId: string, recipients: string[]): NotificationEvent {
  const user = real.sys.user;
  return {
    type,
    eventId,
    tenantId: user.tenantId,
    actor: { id: 'actor', name: 'Actor' },
    recipients,
    priority: type === 'mention.created' ? 'urgent' : 'info',
    timeMs: real.clock.nowMs() - 5_000,
    data: type === 'mention.created' ? { postId: 'p1', excerpt: eventId } : { postId: 'p1', commentId: eventId, excerpt: eventId },
  };
}

function postEvent(real: RealState, celebrityId: string, eventId: string): NotificationEvent {
  return {
    type: POST_TYPE,
    eventId,
    tenantId: real.sys.user.tenantId,
    actor: { id: celebrityId, name: celebrityId },
    recipients: [],
    followersOf: celebrityId,
    priority: 'info',
    timeMs: real.clock.nowMs() - 5_000,
    data: { postId: eventId, title: eventId },
  };
}

/** An own notification (mention: urgent, comment: info) to the user, alone or second of two recipients. */
export class PublishOwn implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly kind: 0 | 1,
    readonly event: number,
    readonly withOther: boolean,
    readonly fault?: FanOutFault,
  ) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const type = OWN_TYPES[this.kind];
    const eventId = `own-${this.event}`;
    const key = eventKey(type, eventId);
    const record = model.events.get(key) ?? { type, eventId, source: 'own' };
    model.events.set(key, record);
    record.withOther ??= this.withOther;
    const recipients = record.withOther ? [OTHER_USER, real.sys.user.userId] : [real.sys.user.userId];
    const outcome = await real.sys.publish(ownEvent(real, type, eventId, recipients), this.fault);
    record.redelivery = outcome === 'killed' ? new PublishOwn(this.kind, this.event, this.withOther) : undefined;
    const stampMs = stampFor(record, model.view.nowMs, model.view.settings.ttlMs);
    if (stampMs !== 'retracted' && record.landedId === undefined) {
      const userIndex = recipients.indexOf(real.sys.user.userId);
      const written = outcome === 'landed' ? recipients.length : this.fault?.kind === 'partialWrite' ? Math.min(this.fault.items, recipients.length) : 0;
      if (written > 0) record.landedSomething = true;
      if (userIndex < written) {
        record.landedId = model.view.ownId(type, eventId, stampMs);
        model.view.land({ id: record.landedId, type, source: 'own', event: key }, stampMs);
      }
    }
    await compareViews(model, real);
  }
  toString = () => `new PublishOwn(${this.kind}, ${this.event}, ${this.withOther}${this.fault ? `, ${JSON.stringify(this.fault)}` : ''})`;
}

/** A celebrity post (a followed one, or one the user does not follow). */
export class PublishPost implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly celebrity: number,
    readonly event: number,
    readonly fault?: FanOutFault,
  ) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const celebrityId = [...CELEBRITIES, UNFOLLOWED_CELEBRITY][this.celebrity % 3]!;
    const eventId = `post-${this.event}`;
    const key = eventKey(POST_TYPE, eventId);
    const record = model.events.get(key) ?? { type: POST_TYPE, eventId, source: celebrityId };
    model.events.set(key, record);
    // A post event belongs to the celebrity that first published it.
    const author = record.source;
    const outcome = await real.sys.publish(postEvent(real, author, eventId), this.fault);
    record.redelivery = outcome === 'killed' ? new PublishPost(this.celebrity, this.event) : undefined;
    const stampMs = stampFor(record, model.view.nowMs, model.view.settings.ttlMs);
    if (stampMs !== 'retracted' && record.landedId === undefined) {
      const written = outcome === 'landed' ? Number.POSITIVE_INFINITY : this.fault?.kind === 'partialWrite' ? this.fault.items : 0;
      if (written > 0) record.landedSomething = true;
      const id = model.view.feedId(POST_TYPE, eventId, author, stampMs);
      if (outcome === 'landed') {
        record.landedId = id;
        model.unknown.delete(id);
        model.view.land({ id, type: POST_TYPE, source: author, event: key }, stampMs);
      } else if (written > 0) model.unknown.add(id);
    }
    await compareViews(model, real);
  }
  toString = () => `new PublishPost(${this.celebrity}, ${this.event}${this.fault ? `, ${JSON.stringify(this.fault)}` : ''})`;
}

/** The producer withdraws an event (sent or not yet sent). */
export class Retract implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly kind: 0 | 1 | 2,
    readonly event: number,
  ) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const post = this.kind === 2;
    const type = post ? POST_TYPE : OWN_TYPES[this.kind as 0 | 1];
    const eventId = `${post ? 'post' : 'own'}-${this.event}`;
    const key = eventKey(type, eventId);
    const known = model.events.get(key) ?? { type, eventId, source: post ? CELEBRITIES[0]! : 'own' };
    model.events.set(key, known);
    const user = real.sys.user;
    const event: NotificationEvent = {
      type: 'notification.retracted',
      eventId: `retract-${type}-${eventId}`,
      tenantId: user.tenantId,
      actor: { id: 'actor' },
      recipients: post ? [] : [user.userId],
      ...(post ? { followersOf: known.source } : {}),
      priority: 'urgent',
      timeMs: real.clock.nowMs(),
      data: { eventId, type },
    };
    expect(await real.sys.publish(event)).toBe('landed');
    // The retraction keeps the stamp the clock holds (or stamps the event now) and marks it retracted.
    expireStamp(known, model.view.nowMs, model.view.settings.ttlMs);
    known.stampMs ??= model.view.nowMs;
    known.retracted = true;
    model.view.retract(type, eventId, known.stampMs!);
    await compareViews(model, real);
  }
  toString = () => `new Retract(${this.kind}, ${this.event})`;
}

/**
 * The producer withdraws one of the events the run has sent (by index, in the order of their keys):
 * `Retract` names any event, so it rarely hits one the user holds, with snoozes and comebacks of it.
 */
export class RetractSent implements fc.AsyncCommand<ModelState, RealState> {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const sent = [...model.events.keys()].sort();
    if (sent.length === 0) return;
    const { type, eventId } = model.events.get(sent[this.pick % sent.length]!)!;
    const kind = type === POST_TYPE ? 2 : (OWN_TYPES.indexOf(type as (typeof OWN_TYPES)[number]) as 0 | 1);
    await new Retract(kind, Number(eventId.slice(eventId.indexOf('-') + 1))).run(model, real);
  }
  toString = () => `new RetractSent(${this.pick})`;
}

// ---------------------------------------------------------------- the user's actions

export class Act implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly action: ItemAction,
    readonly pick: number,
  ) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const id = pickId(model, this.pick);
    const wanted = model.view.act(this.action, id);
    expect(await real.sys.act(this.action, id), `${this.action} ${id}`).toBe(wanted);
    await compareViews(model, real);
  }
  toString = () => `new Act('${this.action}', ${this.pick})`;
}

export class Bulk implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly action: ItemAction,
    readonly picks: readonly number[],
  ) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const ids = this.picks.map((pick) => pickId(model, pick));
    const wanted = model.view.bulk(this.action, ids);
    const got = await real.sys.bulk(this.action, ids);
    expect({ updated: [...got.updated].sort(), notFound: [...got.notFound].sort() }, `bulk ${this.action}`).toEqual({ updated: [...wanted.updated].sort(), notFound: [...wanted.notFound].sort() });
    await compareViews(model, real);
  }
  toString = () => `new Bulk('${this.action}', ${JSON.stringify(this.picks)})`;
}

export class Snooze implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly pick: number,
    readonly aheadMs: number,
    readonly fault?: SnoozeFault,
  ) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    await snooze(model, real, pickId(model, this.pick), model.view.nowMs + this.aheadMs, this.fault);
  }
  toString = () => `new Snooze(${this.pick}, ${this.aheadMs}${this.fault ? `, '${this.fault}'` : ''})`;
}

/**
 * A snooze of a notification in the view (by index, oldest first), until some time ahead or until a
 * moment around its expiry (`{ toExpiryMs }`: that far past it, negative before): `Snooze` picks among
 * every id the run knows, so it rarely lands on one that can come back, or near the expiry boundary.
 */
export class SnoozeInView implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly pick: number,
    readonly until: { aheadMs: number } | { toExpiryMs: number },
  ) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const inView = [...model.view.items.values()].filter((item) => model.view.inView(item.id) && !model.unknown.has(item.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
    if (inView.length === 0) return;
    const item = inView[this.pick % inView.length]!;
    await snooze(model, real, item.id, 'aheadMs' in this.until ? model.view.nowMs + this.until.aheadMs : item.expiresAtMs + this.until.toExpiryMs);
  }
  toString = () => `new SnoozeInView(${this.pick}, ${JSON.stringify(this.until)})`;
}

async function snooze(model: ModelState, real: RealState, id: string, untilMs: number, fault?: SnoozeFault): Promise<void> {
  const got = await real.sys.snooze(id, untilMs, fault);
  if (fault === undefined || got !== 'failed') {
    const wanted = model.view.snooze(id, untilMs);
    expect(got, `snooze ${id}`).toBe(wanted.outcome);
  } else if (fault === 'afterException') {
    // The write that hides it was made: the snooze happened, only its answer was lost. The client retries it.
    model.view.snooze(id, untilMs);
    expect(await real.sys.snooze(id, untilMs), `snooze ${id} retried`).toBe('ok');
  }
  await compareViews(model, real);
}

/**
 * An escalation fires for one of the user's own notifications (not a comeback: snooze returns do not
 * escalate) that has arrived and not expired: the real decision over the stored marks, exceptions and
 * retraction records must be the model's. Escalation adds no state: it reads what the actions left.
 */
export class Escalate implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly pick: number,
    readonly when: 'unseen' | 'unread',
  ) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const nowMs = model.view.nowMs;
    const candidates = [...model.view.items.values()].filter((item) => item.source === 'own' && item.comebackOf === undefined && item.fromMs <= nowMs && item.expiresAtMs > nowMs && !model.unknown.has(item.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
    if (candidates.length === 0) return;
    const item = candidates[this.pick % candidates.length]!;
    const [type, eventId] = item.event.split('\u0000') as [string, string];
    expect(await real.sys.escalationVerdict(item.id, type, eventId, this.when), `escalation (${this.when}) of ${item.id}`).toBe(model.view.escalationVerdict(item.id, this.when));
  }
  toString = () => `new Escalate(${this.pick}, '${this.when}')`;
}

/** The `upTo` a device sends: none, the newest it rendered (current), or an older one (a device that has not caught up). */
type UpTo = { kind: 'none' } | { kind: 'newest' } | { kind: 'stale'; pick: number };

function upToOf(model: ModelState, upTo: UpTo): string | undefined {
  if (upTo.kind === 'none') return undefined;
  const visible = model.view.list().map((item) => item.id);
  if (upTo.kind === 'newest') return visible[0] ?? undefined;
  const older = [...model.view.items.keys()].filter((id) => model.view.inView(id)).sort();
  return older.length === 0 ? undefined : older[upTo.pick % older.length];
}

export class ReadAll implements fc.AsyncCommand<ModelState, RealState> {
  constructor(readonly upTo: UpTo) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const upTo = upToOf(model, this.upTo);
    const wanted = model.view.readAll(upTo);
    expect(await real.sys.readAll(upTo), `read-all up to ${upTo}`).toEqual(wanted);
    await compareViews(model, real);
  }
  toString = () => `new ReadAll(${JSON.stringify(this.upTo)})`;
}

export class SeenAll implements fc.AsyncCommand<ModelState, RealState> {
  constructor(readonly upTo: UpTo) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const upTo = upToOf(model, this.upTo);
    const wanted = model.view.seenAll(upTo);
    expect(await real.sys.seenAll(upTo), `seen-all up to ${upTo}`).toEqual(wanted);
    await compareViews(model, real);
  }
  toString = () => `new SeenAll(${JSON.stringify(this.upTo)})`;
}

export class ArchiveRead implements fc.AsyncCommand<ModelState, RealState> {
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    model.view.archiveRead();
    await real.sys.archiveRead();
    await compareViews(model, real);
  }
  toString = () => 'new ArchiveRead()';
}

/** Time passes (snoozes return, items expire); then queued and scheduled pushes go out. */
export class Advance implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly ms: number,
    /** What is queued goes out before the time passes (seconds, not days: a client's view of the pipeline). */
    readonly deliverFirst = false,
  ) {}
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    if (this.deliverFirst) await new Deliver().run(model, real);
    real.advance(this.ms);
    model.view.advance(this.ms);
    await new Deliver().run(model, real);
  }
  toString = () => `new Advance(${this.ms}${this.deliverFirst ? ', true' : ''})`;
}

/** Queued delivery jobs and due snooze comebacks are pushed: never a notification the user's view does not hold (retracted, deleted). */
export class Deliver implements fc.AsyncCommand<ModelState, RealState> {
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    const pushes = await real.sys.deliver();
    for (const { message } of pushes) {
      const pushed = message.type === 'notification' ? [message.notification] : message.type === 'digest' ? message.notifications : [];
      for (const notification of pushed) {
        const item = model.view.items.get(notification.id);
        if (!item) {
          expect(model.unknown.has(notification.id), `pushed ${notification.id}, which the user never got`).toBe(true);
          continue;
        }
        // A push queued before its event was retracted may still go out (the `retracted` message follows it); one retracted before it ever showed must not.
        expect(model.view.retractedBeforeVisible(item), `pushed ${notification.id}, retracted before it arrived`).toBe(false);
        expect(timeOfId(notification.id) <= model.view.nowMs, `pushed ${notification.id} before it arrived`).toBe(true);
      }
    }
    await compareViews(model, real);
  }
  toString = () => 'new Deliver()';
}

// ---------------------------------------------------------------- generators

const action = fc.constantFrom<ItemAction>('read', 'unread', 'seen', 'archive', 'unarchive', 'delete');
const upTo: fc.Arbitrary<UpTo> = fc.oneof(fc.constant({ kind: 'none' as const }), fc.constant({ kind: 'newest' as const }), fc.nat(50).map((pick) => ({ kind: 'stale' as const, pick })));
const fanOutFault: fc.Arbitrary<FanOutFault | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant({ kind: 'afterStamp' as const }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 }).map((items) => ({ kind: 'partialWrite' as const, items })) },
);
// Own events only: killed after the late arrivals' markers, before the items (a late attempt: a duplicate publish of a stamped event; otherwise no fault).
const ownFanOutFault: fc.Arbitrary<FanOutFault | undefined> = fc.oneof({ weight: 8, arbitrary: fanOutFault }, { weight: 1, arbitrary: fc.constant({ kind: 'afterLateMarkers' as const }) });
const snoozeFault: fc.Arbitrary<SnoozeFault | undefined> = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom<SnoozeFault>('afterComeback', 'afterException') });
const pick = fc.nat(60);

const serverCommandArbitraries = [
  fc.tuple(fc.constantFrom<0 | 1>(0, 1), fc.nat(EVENTS_PER_KIND - 1), fc.boolean(), ownFanOutFault).map(([kind, event, other, fault]) => new PublishOwn(kind, event, other, fault)),
  fc.tuple(fc.nat(2), fc.nat(EVENTS_PER_KIND - 1), fanOutFault).map(([celebrity, event, fault]) => new PublishPost(celebrity, event, fault)),
  fc.tuple(fc.constantFrom<0 | 1 | 2>(0, 1, 2), fc.nat(EVENTS_PER_KIND - 1)).map(([kind, event]) => new Retract(kind, event)),
  fc.tuple(action, pick).map(([a, p]) => new Act(a, p)),
  fc.tuple(action, fc.array(pick, { minLength: 1, maxLength: 5 })).map(([a, picks]) => new Bulk(a, picks)),
  fc.tuple(pick, fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 60_000, max: 3 * DAY }), fc.constant(31 * DAY)), snoozeFault).map(([p, ahead, fault]) => new Snooze(p, ahead, fault)),
  // Snoozes that can come back (some to the last seconds before the expiry, or just past it), and retractions of what was sent.
  fc.tuple(pick, fc.oneof(fc.integer({ min: 1_000, max: 2 * DAY }).map((aheadMs) => ({ aheadMs })), fc.integer({ min: -3_000, max: 1_000 }).map((toExpiryMs) => ({ toExpiryMs })))).map(([p, until]) => new SnoozeInView(p, until)),
  fc.nat(20).map((p) => new RetractSent(p)),
  upTo.map((u) => new ReadAll(u)),
  upTo.map((u) => new SeenAll(u)),
  fc.constant(new ArchiveRead()),
  fc.constant(new Deliver()),
  fc.tuple(pick, fc.constantFrom<'unseen' | 'unread'>('unseen', 'unread')).map(([p, when]) => new Escalate(p, when)),
];

// Minutes to an hour: ids old enough for the counts floor (src/core/model/counts-floor.ts) long before the TTL.
const advanceMs = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1_000, max: 120_000 }), fc.integer({ min: 5 * 60_000, max: 60 * 60_000 }), fc.integer({ min: DAY / 2, max: 3 * DAY }));

export const commandArbitraries = [...serverCommandArbitraries, advanceMs.map((ms) => new Advance(ms))];

// ---------------------------------------------------------------- the client store

/** One step of the client: a request served or answered, a push delivered, a catch-up (the socket reopened), its timers, an older page. */
export class ClientStep implements fc.AsyncCommand<ModelState, RealState> {
  constructor(
    readonly op: ClientOp,
    readonly pick: number,
  ) {}
  check = () => true;
  async run(_model: ModelState, real: RealState): Promise<void> {
    await real.client!.step(this.op, this.pick);
  }
  toString = () => `new ClientStep('${this.op}', ${this.pick})`;
}

/** Everything in flight reaches the client; its badge equals the server's counts and its list the model's. */
export class ClientSettle implements fc.AsyncCommand<ModelState, RealState> {
  check = () => true;
  async run(model: ModelState, real: RealState): Promise<void> {
    await settleAndCompareClient(model, real);
  }
  toString = () => 'new ClientSettle()';
}

export async function settleAndCompareClient(model: ModelState, real: RealState): Promise<void> {
  const client = real.client!;
  // Killed fan-outs are delivered again by their queue, and the queued deliveries go out: the client may wait for their pushes.
  for (const record of [...model.events.values()]) await record.redelivery?.run(model, real);
  await new Deliver().run(model, real);
  await client.settle();
  const view = model.view;
  const { newestId: _newestId, ...counts } = view.counts();
  compareClient(client, {
    list: view.list(),
    counts: model.unknown.size === 0 ? counts : undefined,
    ignored: (id) => model.unknown.has(id) || (view.items.get(id)?.expiresAtMs ?? Number.POSITIVE_INFINITY) <= view.nowMs,
  });
}

/** With a client: the server's commands, time passing after what is queued went out, and the client's steps. */
export const clientRunArbitraries = (): fc.Arbitrary<fc.AsyncCommand<ModelState, RealState>>[] => [...serverCommandArbitraries, advanceMs.map((ms) => new Advance(ms, true)), ...clientArbitraries, ...clientArbitraries, ...clientArbitraries];

const clientArbitraries = [
  fc.tuple(fc.constantFrom<ClientOp>('serve', 'answer', 'push', 'push', 'sync', 'timers', 'loadMore'), fc.nat(8)).map(([op, p]) => new ClientStep(op, p)),
  // The device's own actions (which one and on which held item: the pick).
  fc.nat(120).map((p) => new ClientStep('act', p)),
  fc.constant(new ClientSettle()),
];
