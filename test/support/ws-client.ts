/** A real `ws` client for end-to-end tests: records every server message, waits with bounded polling. */
import WebSocket from 'ws';
import type { LiveMessage } from '../../src/core/live/live-messages.js';
import { pollUntil, type PollOptions } from './poll-until.js';

export const WS_POLL: PollOptions = { attempts: 200, intervalMs: 25 };

export class TestSocket {
  readonly messages: LiveMessage[] = [];
  private closed = false;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => this.messages.push(JSON.parse(data.toString()) as LiveMessage));
    socket.on('close', () => {
      this.closed = true;
    });
  }

  /** Opens `${wsEndpoint}?token=...`; rejects with `RefusedUpgrade` when the server answers HTTP instead. */
  static open(wsEndpoint: string, token: string): Promise<TestSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`${wsEndpoint}?token=${encodeURIComponent(token)}`);
      socket.once('open', () => resolve(new TestSocket(socket)));
      socket.once('unexpected-response', (_request, response) => {
        reject(new RefusedUpgrade(response.statusCode ?? 0));
        socket.terminate();
      });
      socket.once('error', (error) => reject(error));
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  ofType<T extends LiveMessage['type']>(type: T): Extract<LiveMessage, { type: T }>[] {
    return this.messages.filter((message): message is Extract<LiveMessage, { type: T }> => message.type === type);
  }

  /** Waits until at least `count` messages of `type` arrived. */
  async waitFor<T extends LiveMessage['type']>(type: T, count = 1, options: PollOptions = WS_POLL): Promise<Extract<LiveMessage, { type: T }>[]> {
    return pollUntil(() => (this.ofType(type).length >= count ? this.ofType(type) : undefined), options, `${count} ${type} message(s)`);
  }

  /** Ids of every notification received (plain, ref or inside a digest), repeats included. */
  notificationIds(): string[] {
    return this.messages.flatMap((message) => {
      if (message.type === 'notification') return [message.notification.id];
      if (message.type === 'notification_ref') return [message.id];
      if (message.type === 'digest') return message.ids;
      return [];
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}

export class RefusedUpgrade extends Error {
  override readonly name = 'RefusedUpgrade';
  constructor(readonly status: number) {
    super(`upgrade refused with HTTP ${status}`);
  }
}
