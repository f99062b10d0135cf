/**
 * The read side of the inbox, one object per container: pages (`page-scan.ts`), counts
 * (`counts.ts`) and the view lookup the per-item writes check ids against (`inbox-view.ts`). Pages
 * and counts share what the container remembers of celebrity posts log readers. It writes nothing:
 * the marks are `actions/read-marks.ts`.
 */
import type { Counts } from '../model/read-state.js';
import type { UserRef } from '../model/user.js';
import { InboxCounts, type CountsRequest } from './counts.js';
import { InboxView, type InboxReadDeps, type ViewLookup } from './inbox-view.js';
import { InboxPages, type InboxPage, type InboxPageRequest } from './page-scan.js';
import { CelebrityLogReads } from './celebrity-log-reads.js';

export type { CountsRequest } from './counts.js';
export type { ActionTarget, InboxReadDeps, ViewLookup } from './inbox-view.js';
export type { InboxPage, InboxPageRequest } from './page-scan.js';

export class InboxReadService {
  private readonly view: InboxView;
  private readonly pages: InboxPages;
  private readonly tallies: InboxCounts;

  constructor(deps: InboxReadDeps) {
    this.view = new InboxView(deps);
    const celebrityLog = new CelebrityLogReads(deps);
    this.pages = new InboxPages(deps, this.view, celebrityLog);
    this.tallies = new InboxCounts(deps, this.view, celebrityLog);
  }

  /** A newest-first page of the user's view (`page-scan.ts`). */
  listPage(user: UserRef, request: InboxPageRequest): Promise<InboxPage> {
    return this.pages.listPage(user, request);
  }

  /** Unread and unseen counts, capped (`counts.ts`). */
  counts(user: UserRef, request: CountsRequest = {}): Promise<Counts> {
    return this.tallies.counts(user, request);
  }

  /** The ids of a per-item action that are in the user's view, with the read state they change (`inbox-view.ts`). */
  findInView(user: UserRef, ids: readonly string[]): Promise<ViewLookup> {
    return this.view.findInView(user, ids);
  }
}
