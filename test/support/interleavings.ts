/**
 * Exhaustive interleavings of async tasks (stateless model checking): every shared-state access of
 * the fakes calls `step()`, which parks the task; the scheduler resumes one parked task at a time,
 * choosing by a choice sequence, and `forEachInterleaving` enumerates every sequence depth-first.
 */

interface Parked {
  task: string;
  resume: () => void;
}

export class Scheduler {
  private readonly parked: Parked[] = [];
  private active = 0;
  private quiet: (() => void) | undefined;
  private readonly failures: unknown[] = [];
  /** Per decision: [chosen index, options available]. */
  readonly decisions: Array<[number, number]> = [];
  /** The order tasks were resumed in, for a failure message. */
  readonly trace: string[] = [];

  constructor(private readonly prefix: readonly number[]) {}

  /** Starts a task; it runs until its first `step()`. */
  spawn(task: string, work: () => Promise<unknown>): void {
    this.active += 1;
    void (async () => {
      try {
        await work();
      } catch (error) {
        this.failures.push(error);
      } finally {
        this.settle();
      }
    })();
  }

  /** A point where another task may run first (call before each shared-state access). */
  step(task: string): Promise<void> {
    return new Promise<void>((resume) => {
      this.parked.push({ task, resume });
      this.settle();
    });
  }

  private settle(): void {
    this.active -= 1;
    if (this.active === 0) this.quiet?.();
  }

  private async quiescent(): Promise<void> {
    if (this.active === 0) return;
    await new Promise<void>((resolve) => {
      this.quiet = resolve;
    });
    this.quiet = undefined;
  }

  /** Runs every task to completion, one step at a time, in the order the choice sequence picks. */
  async run(): Promise<void> {
    await this.quiescent();
    while (this.parked.length > 0) {
      const index = this.decisions.length;
      const choice = index < this.prefix.length ? this.prefix[index]! : 0;
      this.decisions.push([choice, this.parked.length]);
      const [next] = this.parked.splice(choice, 1);
      this.trace.push(next!.task);
      this.active += 1;
      next!.resume();
      await this.quiescent();
    }
    if (this.failures.length > 0) throw this.failures[0];
  }
}

/** The next choice sequence after `decisions` in depth-first order, or undefined when all were run. */
function nextPrefix(decisions: ReadonlyArray<[number, number]>): number[] | undefined {
  for (let i = decisions.length - 1; i >= 0; i -= 1) {
    const [choice, options] = decisions[i]!;
    if (choice + 1 < options) return [...decisions.slice(0, i).map(([taken]) => taken), choice + 1];
  }
  return undefined;
}

/** Calls `scenario` once per interleaving; returns how many there were. */
export async function forEachInterleaving(scenario: (scheduler: Scheduler) => Promise<void>): Promise<number> {
  let prefix: number[] | undefined = [];
  let runs = 0;
  while (prefix !== undefined) {
    const scheduler = new Scheduler(prefix);
    await scenario(scheduler);
    runs += 1;
    prefix = nextPrefix(scheduler.decisions);
  }
  return runs;
}
