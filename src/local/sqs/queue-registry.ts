/** The local queues by name and URL, for the SQS endpoint and the scheduler's targets. */
import { QueueDoesNotExistError, type LocalQueue } from './queue-store.js';

export class LocalQueueRegistry {
  private readonly byName = new Map<string, LocalQueue>();

  add(queue: LocalQueue): LocalQueue {
    this.byName.set(queue.name, queue);
    return queue;
  }

  byUrl(queueUrl: unknown): LocalQueue {
    const name = typeof queueUrl === 'string' ? (queueUrl.split('/').pop() ?? '') : '';
    const queue = this.byName.get(name);
    if (!queue) throw new QueueDoesNotExistError(`The specified queue does not exist: ${String(queueUrl)}`);
    return queue;
  }

  byQueueName(name: unknown): LocalQueue {
    const queue = typeof name === 'string' ? this.byName.get(name) : undefined;
    if (!queue) throw new QueueDoesNotExistError(`The specified queue does not exist: ${String(name)}`);
    return queue;
  }

  all(): LocalQueue[] {
    return Array.from(this.byName.values());
  }

  /** Graceful stop: no new batches on any queue, and waits (at most `capMs`) for the running ones. */
  async drainAll(capMs: number): Promise<boolean> {
    const drained = await Promise.all(this.all().map((queue) => queue.drain(capMs)));
    return drained.every(Boolean);
  }
}
