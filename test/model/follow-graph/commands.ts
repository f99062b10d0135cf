/**
 * The generated steps of a follow-graph sequence (fast-check commands): producers publish follows,
 * unfollows and posts (a gap of 0 ms makes ties), publish an event again or SQS hands a message out
 * twice; a consumer receives any queued message (queues are independent and unordered), maybe
 * killed at its n-th DynamoDB request; two messages are processed at once with their requests
 * interleaved by a fast-check scheduler.
 */
import fc from 'fast-check';
import type { RecordKind } from './reference-model.js';
import type { SequenceRun } from './harness.js';

type Command = fc.AsyncCommand<SequenceRun, SequenceRun, false>;

export const USERS = ['ann', 'bob', 'cy', 'dee'] as const;

class Publish implements Command {
  constructor(
    private readonly kind: RecordKind,
    private readonly actor: number,
    private readonly other: number,
    private readonly gapMs: number,
  ) {}
  check(): boolean {
    return this.kind === 'post' || this.actor !== this.other;
  }
  async run(_model: SequenceRun, run: SequenceRun): Promise<void> {
    run.publish(this.kind, USERS[this.actor]!, this.kind === 'post' ? undefined : USERS[this.other]!, this.gapMs);
  }
  toString(): string {
    return this.kind === 'post' ? `post(${USERS[this.actor]}, +${this.gapMs})` : `${this.kind}(${USERS[this.actor]}, ${USERS[this.other]}, +${this.gapMs})`;
  }
}

class Republish implements Command {
  constructor(
    private readonly pick: number,
    private readonly gapMs: number,
  ) {}
  check(run: Readonly<SequenceRun>): boolean {
    return run.model.events.size > 0;
  }
  async run(_model: SequenceRun, run: SequenceRun): Promise<void> {
    const events = [...run.model.events.values()];
    run.republish(events[this.pick % events.length]!, this.gapMs);
  }
  toString(): string {
    return `republish(${this.pick}, +${this.gapMs})`;
  }
}

class Redeliver implements Command {
  constructor(private readonly pick: number) {}
  check(run: Readonly<SequenceRun>): boolean {
    return run.system.queue.length > 0;
  }
  async run(_model: SequenceRun, run: SequenceRun): Promise<void> {
    run.redeliver(run.system.queue[this.pick % run.system.queue.length]!);
  }
  toString(): string {
    return `redeliver(${this.pick})`;
  }
}

class Process implements Command {
  constructor(
    private readonly pick: number,
    private readonly killAt: number | undefined,
    private readonly gapMs: number,
  ) {}
  check(run: Readonly<SequenceRun>): boolean {
    return run.system.queue.length > 0;
  }
  async run(_model: SequenceRun, run: SequenceRun): Promise<void> {
    const message = run.system.queue[this.pick % run.system.queue.length]!;
    await run.process([{ message, ...(this.killAt !== undefined ? { killAt: this.killAt } : {}) }], this.gapMs);
  }
  toString(): string {
    return `process(${this.pick}${this.killAt !== undefined ? `, kill@${this.killAt}` : ''}, +${this.gapMs})`;
  }
}

class ProcessTogether implements Command {
  constructor(
    private readonly picks: readonly [number, number],
    private readonly kills: readonly [number | undefined, number | undefined],
    private readonly gapMs: number,
    private readonly scheduler: fc.Scheduler,
  ) {}
  check(run: Readonly<SequenceRun>): boolean {
    return run.system.queue.length > 1;
  }
  async run(_model: SequenceRun, run: SequenceRun): Promise<void> {
    const { queue } = run.system;
    const first = queue[this.picks[0] % queue.length]!;
    const rest = queue.filter((message) => message !== first);
    const second = rest[this.picks[1] % rest.length]!;
    const kill = (index: 0 | 1) => (this.kills[index] !== undefined ? { killAt: this.kills[index] } : {});
    // Two copies of one event at once would race Powertools' IN_PROGRESS expiry on the wall clock (not replayable): one at a time.
    if (first.eventId !== undefined && first.eventId === second.eventId) return run.process([{ message: first, ...kill(0) }], this.gapMs);
    await run.process([{ message: first, ...kill(0) }, { message: second, ...kill(1) }], this.gapMs, this.scheduler);
  }
  toString(): string {
    const kill = (index: 0 | 1) => (this.kills[index] !== undefined ? `kill@${this.kills[index]}` : 'no kill');
    return `together(${this.picks[0]} ${kill(0)}, ${this.picks[1]} ${kill(1)}, +${this.gapMs}, ${this.scheduler})`;
  }
}

const user = fc.nat(USERS.length - 1);
const gap = fc.integer({ min: 0, max: 3 });
const kill = fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: fc.nat(30) });

export const commandArbitraries: Array<fc.Arbitrary<Command>> = [
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<RecordKind>('follow') },
    { weight: 1, arbitrary: fc.constant<RecordKind>('unfollow') },
    { weight: 2, arbitrary: fc.constant<RecordKind>('post') },
  ).chain((kind) => fc.tuple(user, user, gap).map(([actor, other, gapMs]) => new Publish(kind, actor, other, gapMs))),
  fc.tuple(fc.nat(), gap).map(([pick, gapMs]) => new Republish(pick, gapMs)),
  fc.nat().map((pick) => new Redeliver(pick)),
  fc.tuple(fc.nat(), kill, gap).map(([pick, killAt, gapMs]) => new Process(pick, killAt, gapMs)),
  fc.tuple(fc.nat(), fc.nat(), kill, kill, gap, fc.scheduler()).map(([first, second, firstKill, secondKill, gapMs, scheduler]) => new ProcessTogether([first, second], [firstKill, secondKill], gapMs, scheduler)),
];

/** Weights of the arbitraries above (publish, republish, redeliver, process, together). */
export const commandWeights = [5, 1, 1, 6, 2] as const;

/** The commands arbitrary of a sequence of at most `maxCommands` steps. */
export function sequences(maxCommands: number): fc.Arbitrary<Iterable<Command>> {
  const weighted = commandArbitraries.flatMap((arbitrary, index) => Array.from({ length: commandWeights[index]! }, () => arbitrary));
  // FC_REPLAY_PATH: the `replayPath` a failure prints, with FC_SEED and FC_PATH (commands need all three to replay).
  return fc.commands(weighted, { maxCommands, size: 'max', ...(process.env.FC_REPLAY_PATH ? { replayPath: process.env.FC_REPLAY_PATH } : {}) });
}
