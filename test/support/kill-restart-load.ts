/**
 * The fault test's harness: the local runtime as a child process (node + tsx, one process, so
 * SIGKILL kills it all), killed and restarted on the same DATA_DIR during a PutEvents load of
 * mentions, with WebSocket clients that reconnect and catch up with `since=`. It reports what every
 * recipient's inbox holds (through REST) and how often each connection received each id.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import WebSocket from 'ws';
import type { Notification, NotificationPage } from '../../src/contract/wire.js';
import type { LiveMessage } from '../../src/core/live/live-messages.js';
import { loadLocalSecrets } from '../../src/local/signing-key.js';
import { call, freePort } from './http.js';
import { auditCoverage, type AuditCoverage } from './audit-coverage.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const TENANT = 'acme';

export interface KillRestartOptions {
  events: number;
  kills: number;
  users: number;
  /** Users 0..liveUsers-1 hold a WebSocket client. */
  liveUsers: number;
  /** PutEvents entries sent per second (the load spans the kills). */
  eventsPerSecond: number;
  /** The runtime's FUNCTION_TIMEOUT_MS (visibility is 6x it: how long a killed batch waits). */
  functionTimeoutMs: number;
  settleTimeoutMs: number;
}

export interface KillRestartResult {
  expectedPairs: number;
  /** `recipient/eventId` expected but not in the inbox. */
  lost: string[];
  /** `recipient/eventId` in the inbox more than once. */
  duplicated: string[];
  /** `connection/id` received more than once on the same connection. */
  duplicatePushes: string[];
  pushes: number;
  connections: number;
  kills: number;
  runtimeOutput: string;
  /** The audit trail after the load (test/support/audit-coverage.ts). */
  audit: AuditCoverage;
}

const recipientsOf = (index: number, users: number) => [...new Set([index % users, (index * 7 + 3) % users])].map((user) => `u${user}`);

/** The local runtime as a child process (`npm start`'s entry), started, SIGKILLed and restarted on the same DATA_DIR. */
export class Runtime {
  child: ChildProcess | undefined;
  output = '';

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  async start(): Promise<void> {
    const loader = pathToFileURL(join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    // cwd is the temp dir: main.ts writes .local/endpoints.json there, not in the repository.
    const child = spawn(process.execPath, ['--import', loader, join(repoRoot, 'src', 'local', 'main.ts')], { cwd: this.env.DATA_DIR_PARENT, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let started = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the runtime did not come up:\n${started}`)), 45_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        started += chunk.toString();
        if (started.includes('local runtime is up')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => void (this.output += chunk.toString()));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the runtime exited (${code ?? signal}):\n${started}${this.output}`));
      });
    });
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }
}

/** A device: reconnects whenever its socket closes, and after each connect catches up with `since=`. */
class ReconnectingClient {
  readonly held = new Set<string>();
  /** connection number -> id -> times received on that connection. */
  readonly received = new Map<number, Map<string, number>>();
  private connection = 0;
  private socket: WebSocket | undefined;
  private stopped = false;

  constructor(
    private readonly endpoints: () => { http: string; ws: string },
    private readonly token: string,
  ) {}

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    while (!this.stopped) {
      const opened = await this.open().catch(() => false);
      if (opened) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private open(): Promise<boolean> {
    const number = ++this.connection;
    const pushes = new Map<string, number>();
    this.received.set(number, pushes);
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`${this.endpoints().ws}?token=${encodeURIComponent(this.token)}`);
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as LiveMessage;
        const ids = message.type === 'notification' ? [message.notification.id] : message.type === 'notification_ref' ? [message.id] : message.type === 'digest' ? message.ids : [];
        for (const id of ids) {
          pushes.set(id, (pushes.get(id) ?? 0) + 1);
          this.held.add(id);
        }
      });
      socket.once('open', () => {
        this.socket = socket;
        socket.once('close', () => void this.connect());
        resolve(true);
        void this.catchUp().catch(() => undefined);
      });
      socket.once('error', (error) => reject(error));
    });
  }

  private async catchUp(): Promise<void> {
    const since = [...this.held].sort().at(-1);
    for (const item of await listAll(this.endpoints().http, this.token, since)) this.held.add(item.id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.socket?.terminate();
  }
}

async function listAll(http: string, token: string, since?: string): Promise<Notification[]> {
  const items: Notification[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '100', ...(since ? { since } : {}), ...(cursor ? { cursor } : {}) });
    const answer = await call(http, 'GET', `/notifications?${query}`, { token });
    if (answer.status !== 200) throw new Error(`GET /notifications answered ${answer.status}`);
    const page = answer.body as NotificationPage;
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** PutEvents until every entry is accepted: refused calls (runtime down) and failed entries are retried. */
async function putUntilAccepted(client: () => EventBridgeClient, entries: PutEventsRequestEntry[]): Promise<void> {
  let pending = entries;
  while (pending.length > 0) {
    try {
      const answer = await client().send(new PutEventsCommand({ Entries: pending }));
      pending = pending.filter((_, index) => answer.Entries?.[index]?.ErrorCode !== undefined);
    } catch {
      // Down or killed mid-call: the whole call again (the event ids make a repeat idempotent).
    }
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function runKillRestartLoad(options: KillRestartOptions): Promise<KillRestartResult> {
  const parent = await mkdtemp(join(tmpdir(), 'notifications-kill-restart-'));
  const dataDir = join(parent, 'data');
  const [port, wsPort] = [await freePort(), await freePort()];
  const endpoints = { http: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${wsPort}` };
  const runtime = new Runtime({
    ...process.env,
    PORT: String(port),
    WS_PORT: String(wsPort),
    DATA_DIR: dataDir,
    DATA_DIR_PARENT: parent,
    FUNCTION_TIMEOUT_MS: String(options.functionTimeoutMs),
    INFO_BATCH_WINDOW_MS: '200',
    LOG_LEVEL: 'WARN',
  });
  const clients: ReconnectingClient[] = [];
  let events: EventBridgeClient | undefined;
  try {
    await runtime.start();
    const secrets = await loadLocalSecrets(dataDir);
    const tokens = new Map<string, string>();
    for (let user = 0; user < options.users; user++) tokens.set(`u${user}`, await secrets.issueToken({ tenantId: TENANT, userId: `u${user}`, ttlSeconds: 3600 }));
    for (let user = 0; user < options.liveUsers; user++) {
      const client = new ReconnectingClient(() => endpoints, tokens.get(`u${user}`)!);
      clients.push(client);
      client.start();
    }
    // A fresh client per call: a killed runtime leaves its keep-alive sockets dead.
    const eventsClient = () => {
      events?.destroy();
      events = new EventBridgeClient({ endpoint: endpoints.http, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
      return events;
    };

    const expected = new Set<string>();
    const entries: PutEventsRequestEntry[] = [];
    for (let index = 0; index < options.events; index++) {
      const id = `kr-${index}`;
      const recipients = recipientsOf(index, options.users);
      for (const recipient of recipients) expected.add(`${recipient}/${id}`);
      entries.push({
        EventBusName: 'notifications',
        Source: 'test.kill-restart',
        DetailType: 'mention.created',
        Detail: JSON.stringify({ id, tenantId: TENANT, actor: { id: 'writer', name: 'Writer' }, recipients, data: { postId: `p-${index}`, excerpt: id } }),
      });
    }

    // Load, 10 entries per call, paced; the kills at evenly spaced points of it.
    const killAt = new Set(Array.from({ length: options.kills }, (_, kill) => Math.floor(((kill + 1) * options.events) / (options.kills + 1) / 10) * 10));
    let kills = 0;
    const started = Date.now();
    for (let offset = 0; offset < entries.length; offset += 10) {
      if (killAt.has(offset)) {
        await runtime.kill();
        kills += 1;
        await runtime.start();
      }
      await putUntilAccepted(eventsClient, entries.slice(offset, offset + 10));
      const due = started + ((offset + 10) / options.eventsPerSecond) * 1000;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    }

    // Settle: until every expected (recipient, event) is in an inbox, or the time is up.
    const deadline = Date.now() + options.settleTimeoutMs;
    let inboxes = new Map<string, Notification[]>();
    for (;;) {
      inboxes = new Map(await Promise.all([...tokens].map(async ([user, token]) => [user, await listAll(endpoints.http, token)] as const)));
      const present = new Set([...inboxes].flatMap(([user, items]) => items.map((item) => `${user}/${String(item.data.excerpt)}`)));
      if ([...expected].every((pair) => present.has(pair)) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // Late redeliveries would show up as duplicate pushes now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const seen = new Map<string, number>();
    for (const [user, items] of inboxes) for (const item of items) seen.set(`${user}/${String(item.data.excerpt)}`, (seen.get(`${user}/${String(item.data.excerpt)}`) ?? 0) + 1);
    const duplicatePushes: string[] = [];
    let pushes = 0;
    let connections = 0;
    clients.forEach((client, clientIndex) => {
      for (const [connection, received] of client.received) {
        connections += 1;
        for (const [id, count] of received) {
          pushes += count;
          if (count > 1) duplicatePushes.push(`u${clientIndex}#${connection}/${id}x${count}`);
        }
      }
    });
    const audit = await auditCoverage(dataDir, TENANT, expected);
    return {
      audit,
      expectedPairs: expected.size,
      lost: [...expected].filter((pair) => !seen.has(pair)),
      duplicated: [...seen].filter(([, count]) => count > 1).map(([pair]) => pair),
      duplicatePushes,
      pushes,
      connections,
      kills,
      runtimeOutput: runtime.output,
    };
  } finally {
    await Promise.all(clients.map((client) => client.stop()));
    events?.destroy();
    await runtime.kill('SIGTERM');
    await rm(parent, { recursive: true, force: true });
  }
}
