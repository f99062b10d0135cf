/**
 * The inbox writer of the fan-out and the follow path: an own item that lands more than
 * LATE_ARRIVAL_MS after its id's time (a retry or redrive under the first stamp, a follow's backfill
 * of an older post) also gets a marker beside the user's marks, written BEFORE the item: counts find
 * such an item by its marker when the counts floor is already above its id, and look the item up, so
 * a kill between the two leaves a marker of nothing (not counted) and never an item counts miss
 * (src/core/model/counts-floor.ts).
 */
import { isLateArrival } from '../model/counts-floor.js';
import type { Clock } from '../ports/clock.js';
import type { InboxItemToWrite, InboxWriter, LateArrivalMarker, LateArrivalRecorder } from '../ports/inbox.js';

export class LateArrivalMarking implements InboxWriter {
  constructor(
    private readonly inner: InboxWriter,
    private readonly recorder: LateArrivalRecorder,
    private readonly clock: Clock,
  ) {}

  async writeInboxItems(items: readonly InboxItemToWrite[]): Promise<void> {
    // Late is decided before the writes: the floor's lag covers their time in flight.
    const nowMs = this.clock.nowMs();
    const markers: LateArrivalMarker[] = [];
    for (const { source, item } of items) {
      if (source.kind !== 'own' || !isLateArrival(item.id, nowMs)) continue;
      markers.push({ user: { tenantId: source.tenantId, userId: source.userId }, id: item.id, expiresAt: item.expiresAt });
    }
    if (markers.length > 0) await this.recorder.recordLateArrivals(markers);
    await this.inner.writeInboxItems(items);
  }
}
