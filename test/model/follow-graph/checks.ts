/**
 * The comparisons of a follow-graph sequence. After every processing step, for every user: the page
 * (every id known, the user's own or a feed's, newest first, each event once, the model's must and
 * nothing outside its must and may), `since` from an id inside the page, and the counts. At the end
 * (queues drained): every event processed, each account's follower count and tier, each user's
 * followed-celebrities pack and edges, and a trace record for every post in a view.
 */
import { notificationId } from '../../../src/core/model/ids.js';
import { recipientNotificationId, feedRecipient } from '../../../src/core/model/recipient-ids.js';
import { COUNT_CAP } from '../../../src/core/model/read-state.js';
import { demotionThreshold } from '../../../src/core/model/tier.js';
import { GraphRepository } from '../../../src/adapters/dynamo/graph-repository.js';
import { keys } from '../../../src/core/model/keys.js';
import type { SequenceRun } from './harness.js';

interface Owner {
  eventId: string;
  /** The user whose own partition holds the id, or undefined for a feed item. */
  user?: string;
}

/** Every id the system may show: each event's copy for each user, and each post's feed id. */
function idIndex(run: SequenceRun): Map<string, Owner> {
  const { tenantId } = run.system;
  const index = new Map<string, Owner>();
  for (const event of run.model.events.values()) {
    if (event.stampMs === undefined) continue;
    if (event.kind === 'follow') index.set(recipientNotificationId(tenantId, 'follow.created', event.eventId, event.followee!, event.stampMs), { eventId: event.eventId, user: event.followee! });
    if (event.kind !== 'post') continue;
    // A post's ids are those of the mode it was fanned out in: a copy of the other mode is an id of no event.
    if (event.modes.has('ordinary')) for (const user of run.users) index.set(recipientNotificationId(tenantId, 'post.published', event.eventId, user, event.stampMs), { eventId: event.eventId, user });
    if (event.modes.has('celebrity')) index.set(notificationId({ tenantId, type: 'post.published', eventId: event.eventId, recipient: feedRecipient(event.actor), timeMs: event.stampMs }), { eventId: event.eventId });
  }
  return index;
}

const sortedDescending = (ids: readonly string[]) => ids.every((id, index) => index === 0 || ids[index - 1]! > id);

/** Last page seen per (run, user): since and counts are compared again only when the page changed. */
const lastPages = new WeakMap<SequenceRun, Map<string, string>>();

/** Compares the views of `users` (default every user) with the model; `force`: since and counts too, whether or not the page changed. */
export async function checkViews(run: SequenceRun, users: readonly string[] = run.users, force = false): Promise<void> {
  const index = idIndex(run);
  const seenPages = lastPages.get(run) ?? new Map<string, string>();
  lastPages.set(run, seenPages);
  for (const user of users) {
    const ref = { tenantId: run.system.tenantId, userId: user };
    const page = await run.system.reads.listPage(ref, { limit: 100 });
    const ids = page.items.map((item) => item.id);
    if (!sortedDescending(ids)) run.fail(`${user}'s page is not newest first: ${ids.join(', ')}`);
    const shown = new Map<string, string>();
    for (const id of ids) {
      const owner = index.get(id);
      if (!owner) run.fail(`${user}'s page shows ${id}, an id of no event`);
      if (owner.user !== undefined && owner.user !== user) run.fail(`${user}'s page shows ${owner.user}'s copy of ${owner.eventId}`);
      if (shown.has(owner.eventId)) run.fail(`${user}'s page shows ${owner.eventId} twice (${shown.get(owner.eventId)} and ${id})`);
      shown.set(owner.eventId, id);
    }
    const { must, may } = run.model.expectedView(user);
    const missing = [...must].filter((eventId) => !shown.has(eventId));
    const extra = [...shown.keys()].filter((eventId) => !must.has(eventId) && !may.has(eventId));
    if (missing.length > 0 || extra.length > 0) {
      run.fail(`${user}'s view: missing [${missing.join(', ')}], not expected [${extra.join(', ')}] (shown [${[...shown.keys()].join(', ')}], must [${[...must].join(', ')}], may [${[...may].join(', ')}])`);
    }
    const key = ids.join(',');
    if (!force && seenPages.get(user) === key) continue;
    seenPages.set(user, key);
    if (ids.length > 0) {
      const since = ids[Math.floor(ids.length / 2)]!;
      const newer = (await run.system.reads.listPage(ref, { limit: 100, since })).items.map((item) => item.id);
      const expected = ids.filter((id) => id > since);
      if (newer.join(',') !== expected.join(',')) run.fail(`${user}'s since=${since}: [${newer.join(', ')}], the page says [${expected.join(', ')}]`);
    }
    const counts = await run.system.reads.counts(ref);
    const unread = Math.min(ids.length, COUNT_CAP);
    if (counts.unread !== unread || counts.unseen !== unread) run.fail(`${user}'s counts: unread ${counts.unread}, unseen ${counts.unseen}; the page holds ${ids.length}`);
  }
}

/** Queues drained: every event processed, and the graph and the trace as the model says. */
export async function checkFinal(run: SequenceRun): Promise<void> {
  const pending = [...run.model.events.values()].filter((event) => event.status !== 'done');
  if (pending.length > 0) run.fail(`not processed after the drain: ${pending.map((event) => event.eventId).join(', ')}`);
  await checkViews(run, run.users, true);
  await checkGraph(run);
  if (!process.env.SKIP_TRACE) await checkTrace(run);
}

async function checkGraph(run: SequenceRun): Promise<void> {
  const { tenantId } = run.system;
  const threshold = run.threshold;
  const everCelebrity = new Set<string>();
  for (const account of run.users) {
    const profile = await run.system.getItem('graph', keys.profile(tenantId, account));
    const count = Number(profile?.followerCount ?? 0);
    const tier = profile?.tier === 'celebrity' ? 'celebrity' : 'ordinary';
    if (profile?.everCelebrity === true) everCelebrity.add(account);
    const followers = run.model.followersOf(account);
    if (count !== followers.size) run.fail(`${account} has follower count ${count}, the model ${followers.size} (${[...followers.keys()].join(', ')})`);
    if (count >= threshold && tier !== 'celebrity') run.fail(`${account} has ${count} followers (threshold ${threshold}) and is ${tier}`);
    if (count < demotionThreshold(threshold) && tier !== 'ordinary') run.fail(`${account} has ${count} followers (demotion below ${demotionThreshold(threshold)}) and is ${tier}`);
  }
  const graph = new GraphRepository(run.system.readerClient, run.system.tables.graph);
  for (const user of run.users) {
    const packed = new Map((await graph.listFollowedCelebrities({ tenantId, userId: user })).map((entry) => [entry.celebrityId, entry.followedAtMs]));
    const expected = new Map<string, number>();
    for (const account of everCelebrity) {
      const follow = run.model.appliedRun(user, account);
      if (follow.following) expected.set(account, follow.runStartMs!);
    }
    const describe = (entries: Map<string, number>) => [...entries].map(([account, atMs]) => `${account}@${atMs - run.startedAtMs}`).sort().join(', ');
    if (describe(packed) !== describe(expected)) run.fail(`${user}'s followed-celebrities pack: [${describe(packed)}], the model [${describe(expected)}]`);
    for (const account of run.users) {
      if (account === user) continue;
      const edge = await run.system.getItem('graph', keys.followingCeleb(tenantId, user, account));
      if ((edge !== undefined) !== expected.has(account)) run.fail(`${user}'s FOLLOWING_CELEBS edge of ${account}: ${edge ? 'present' : 'absent'}, the pack ${expected.has(account) ? 'names it' : 'does not'}`);
    }
  }
}

/** Every post in a view has a trace record saying how it got there; a post fanned out to nobody says so. */
async function checkTrace(run: SequenceRun): Promise<void> {
  const { tenantId } = run.system;
  for (const user of run.users) {
    for (const eventId of run.model.expectedView(user).must) {
      const event = run.model.events.get(eventId)!;
      if (event.kind !== 'post') continue;
      const entries = await run.system.traces.explain(tenantId, user, eventId);
      const answered = entries.some((entry) => (entry.userId === user && (entry.outcome === 'inbox_written' || (entry.outcome as string) === 'backfilled')) || (entry.userId === undefined && entry.outcome === 'celebrity_feed'));
      if (!answered) run.fail(`explain ${user} ${eventId} (in ${user}'s view) has no fan-out record saying how: ${entries.map((entry) => `${entry.stage}:${entry.outcome}`).join(', ') || 'none'}`);
    }
  }
  for (const post of run.model.posts()) {
    if (!post.modes.has('ordinary')) continue;
    const entries = await run.system.traces.explain(tenantId, post.actor, post.eventId);
    const fanout = entries.filter((entry) => entry.stage === 'fanout');
    if (fanout.length === 0) run.fail(`explain of ${post.eventId} (an ordinary post) has no fan-out record: ${entries.map((entry) => `${entry.stage}:${entry.outcome}`).join(', ') || 'none'}`);
  }
}
