/**
 * One live WebSocket that stays up: reconnects with exponential backoff and full jitter, sends a
 * keep-alive ping well inside API Gateway's 10-minute idle timeout (and treats a missing pong as a
 * dead socket: a laptop that slept keeps a socket that looks open), and reconnects on purpose
 * before API Gateway's 2-hour connection limit so the cut never comes by surprise.
 */
import { backoffDelay, type BackoffOptions } from './backoff.js';
import { resolveToken } from './rest.js';
import type { ClientMessage, Clock, ServerMessage, TimerHandle, TokenSource, WebSocketFactory, WebSocketLike } from './types.js';

const PING: ClientMessage = { action: 'ping' };

export type ConnectionStatus = 'idle' | 'connecting' | 'open' | 'waiting' | 'stopped';

export interface LiveConnectionTimings {
  /** Keep-alive ping interval. Default 5 min (API Gateway drops a connection idle for 10 min). */
  pingIntervalMs?: number;
  /** A ping unanswered this long means the socket is dead. Default 10 s. */
  pongTimeoutMs?: number;
  /** Planned reconnect after this long (API Gateway closes at 2 h). Default 110 min. */
  maxConnectionAgeMs?: number;
  /** A connect that neither opens nor fails within this is abandoned. Default 15 s. */
  connectTimeoutMs?: number;
  /** The backoff starts over once a connection has stayed open this long. Default 10 s. */
  stableAfterMs?: number;
  backoff?: BackoffOptions;
}

export interface LiveConnectionOptions extends LiveConnectionTimings {
  /** WebSocket endpoint; the token is appended as `?token=` (CONTRACT.md). */
  url: string;
  token: TokenSource;
  createSocket: WebSocketFactory;
  clock: Clock;
  random: () => number;
  onOpen(): void;
  onMessage(message: ServerMessage): void;
  onStatus(status: ConnectionStatus): void;
  onError(error: Error): void;
}

const OPEN = 1;

export class LiveConnection {
  private socket: WebSocketLike | undefined;
  private statusValue: ConnectionStatus = 'idle';
  /** Consecutive failed attempts; the next wait grows with it. */
  private attempt = 0;
  /** Set when the previous connect was refused: ask the token provider for a fresh token. */
  private refreshToken = false;
  private reconnectTimer: TimerHandle | undefined;
  private connectTimer: TimerHandle | undefined;
  private pingTimer: TimerHandle | undefined;
  private pongTimer: TimerHandle | undefined;
  private ageTimer: TimerHandle | undefined;
  private stableTimer: TimerHandle | undefined;
  /** Bumped by every connect and stop, so a connect still awaiting its token knows it was superseded. */
  private generation = 0;
  private readonly timings: Required<Omit<LiveConnectionTimings, 'backoff'>> & { backoff: BackoffOptions };

  constructor(private readonly options: LiveConnectionOptions) {
    this.timings = {
      pingIntervalMs: options.pingIntervalMs ?? 5 * 60_000,
      pongTimeoutMs: options.pongTimeoutMs ?? 10_000,
      maxConnectionAgeMs: options.maxConnectionAgeMs ?? 110 * 60_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      stableAfterMs: options.stableAfterMs ?? 10_000,
      backoff: options.backoff ?? {},
    };
  }

  get status(): ConnectionStatus {
    return this.statusValue;
  }

  start(): void {
    if (this.statusValue !== 'idle' && this.statusValue !== 'stopped') return;
    void this.connect();
  }

  stop(): void {
    this.generation += 1;
    this.setStatus('stopped');
    this.clearTimers();
    this.dropSocket(1000, 'client stopped');
  }

  setToken(token: TokenSource): void {
    this.options.token = token;
    this.reconnectNow();
  }

  /** Closes the current socket (if any) and connects again at once, without backoff. */
  reconnectNow(): void {
    if (this.statusValue === 'stopped' || this.statusValue === 'idle') return;
    this.clearTimers();
    this.dropSocket(1000, 'reconnect');
    this.attempt = 0;
    void this.connect();
  }

  /** Sends a ping now; no pong within the timeout means the socket is dead and gets replaced. */
  probe(): void {
    if (this.statusValue === 'waiting') {
      this.reconnectNow();
      return;
    }
    if (this.statusValue === 'open') this.ping();
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    this.setStatus('connecting');
    let token: string;
    try {
      token = await resolveToken(this.options.token, this.refreshToken);
    } catch (error) {
      if (generation !== this.generation) return;
      this.options.onError(error instanceof Error ? error : new Error(String(error)));
      this.refreshToken = true;
      this.scheduleReconnect();
      return;
    }
    if (generation !== this.generation || this.statusValue !== 'connecting') return;
    const separator = this.options.url.includes('?') ? '&' : '?';
    let socket: WebSocketLike;
    try {
      socket = this.options.createSocket(`${this.options.url}${separator}token=${encodeURIComponent(token)}`);
    } catch (error) {
      this.options.onError(error instanceof Error ? error : new Error(String(error)));
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    let opened = false;
    this.connectTimer = this.options.clock.setTimeout(() => {
      if (this.socket === socket && !opened) this.lost(socket);
    }, this.timings.connectTimeoutMs);

    socket.onopen = () => {
      if (this.socket !== socket) return;
      opened = true;
      this.refreshToken = false;
      this.options.clock.clearTimeout(this.connectTimer);
      this.setStatus('open');
      this.stableTimer = this.options.clock.setTimeout(() => {
        this.attempt = 0;
      }, this.timings.stableAfterMs);
      this.ageTimer = this.options.clock.setTimeout(() => this.reconnectNow(), this.timings.maxConnectionAgeMs);
      this.schedulePing();
      this.options.onOpen();
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      let message: ServerMessage;
      try {
        message = JSON.parse(typeof event.data === 'string' ? event.data : String(event.data)) as ServerMessage;
      } catch {
        this.options.onError(new Error('unreadable WebSocket message'));
        return;
      }
      // Any message proves the socket alive.
      this.options.clock.clearTimeout(this.pongTimer);
      this.pongTimer = undefined;
      if (message.type === 'pong') return;
      this.options.onMessage(message);
    };
    socket.onerror = () => {
      // A close always follows; it decides what happens next.
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      // Refused before opening (expired token, say): the next attempt asks for a fresh token.
      if (!opened) this.refreshToken = true;
      this.lost(socket);
    };
  }

  /** The socket is gone or unusable: forget it and retry after a backoff delay. */
  private lost(socket: WebSocketLike): void {
    if (this.socket !== socket) return;
    this.clearTimers();
    this.dropSocket(4000, 'lost');
    if (this.statusValue === 'stopped') return;
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.statusValue === 'stopped') return;
    const delay = backoffDelay(this.attempt, this.options.random, this.timings.backoff);
    this.attempt += 1;
    this.setStatus('waiting');
    this.reconnectTimer = this.options.clock.setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delay);
  }

  private schedulePing(): void {
    this.options.clock.clearTimeout(this.pingTimer);
    this.pingTimer = this.options.clock.setTimeout(() => {
      this.ping();
      this.schedulePing();
    }, this.timings.pingIntervalMs);
  }

  private ping(): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return;
    try {
      socket.send(JSON.stringify(PING));
    } catch {
      this.lost(socket);
      return;
    }
    if (this.pongTimer === undefined) {
      this.pongTimer = this.options.clock.setTimeout(() => {
        this.pongTimer = undefined;
        this.lost(socket);
      }, this.timings.pongTimeoutMs);
    }
  }

  private dropSocket(code: number, reason: string): void {
    const socket = this.socket;
    this.socket = undefined;
    if (!socket) return;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = () => undefined;
    try {
      socket.close(code, reason);
    } catch {
      // Already closed or still connecting in a runtime that refuses close(); it is detached anyway.
    }
  }

  private clearTimers(): void {
    const clock = this.options.clock;
    for (const timer of [this.reconnectTimer, this.connectTimer, this.pingTimer, this.pongTimer, this.ageTimer, this.stableTimer]) {
      if (timer !== undefined) clock.clearTimeout(timer);
    }
    this.reconnectTimer = this.connectTimer = this.pingTimer = this.pongTimer = this.ageTimer = this.stableTimer = undefined;
  }

  private setStatus(status: ConnectionStatus): void {
    if (this.statusValue === status) return;
    this.statusValue = status;
    this.options.onStatus(status);
  }
}
