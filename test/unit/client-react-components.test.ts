/**
 * The React components' states and markup (issue 30), rendered on the server over a client of the
 * fake inbox server: loading, the error with "Try again", empty, the feed's articles (unread said in
 * text, "Mark as read", action links and buttons), labels, locale and time formatter, `className`
 * added to the defaults, and the bell's disclosure attributes and icon slot. The interactions
 * (keyboard, clicks, axe) are the browser suite's (test/browser/react-app.spec.ts).
 */
import { createElement as h, type ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createInboxClient, type Notification } from '../../src/client/index.js';
import { InboxProvider, NotificationBell, NotificationCenter, NotificationFeed, relativeTimeFormatter } from '../../src/client/react.js';
import { FakeClock, FakeInboxServer, aClientNotification } from '../support/client-fakes.js';
import { SECOND, T0 } from '../support/fixtures.js';

const NOW = T0 + 3_600 * SECOND;

function aClient(items: Notification[], token = 'token-1') {
  const clock = new FakeClock(NOW);
  const server = new FakeInboxServer(clock);
  server.add(...items);
  const client = createInboxClient({ httpUrl: 'http://inbox.test', wsUrl: 'ws://inbox.test', token: () => token, fetch: server.fetch, clock, live: false, random: () => 0.5 });
  return { client, server };
}

function render(client: ReturnType<typeof aClient>['client'], ...children: ReactNode[]): string {
  return renderToString(h(InboxProvider, { client }, ...children));
}

const mention = aClientNotification(T0, 'evt-link', {
  title: 'Bob mentioned you',
  body: 'look at this',
  actionUrl: 'https://app.example.com/posts/1',
  actions: [
    { label: 'Open', url: 'https://app.example.com/posts/1' },
    { label: 'Reply', actionId: 'reply' },
  ],
});

describe('NotificationFeed states', () => {
  it('says it is loading before the first page, busy, with no list', () => {
    const { client } = aClient([mention]);
    const html = render(client, h(NotificationFeed));
    expect(html).toMatch(/<div class="sn-state" role="status">Loading notifications…<\/div>/);
    expect(html).toContain('aria-busy="true"');
    expect(html).not.toContain('role="feed"');
  });

  it('shows a refused token as an expired session with "Try again", and the list once a retry succeeds', async () => {
    // Prepare
    let token = 'expired';
    const clock = new FakeClock(NOW);
    const server = new FakeInboxServer(clock);
    server.add(mention);
    const client = createInboxClient({ httpUrl: 'http://inbox.test', wsUrl: 'ws://inbox.test', token: () => token, fetch: server.fetch, clock, live: false });
    await client.start();

    // Act
    const failed = render(client, h(NotificationFeed));
    token = 'token-1';
    await client.retry();
    const recovered = render(client, h(NotificationFeed));

    // Assess
    expect(failed).toMatch(/role="alert"/);
    expect(failed).toContain('Your session has expired. Sign in again to see your notifications.');
    expect(failed).toMatch(/<button type="button" class="sn-button">Try again<\/button>/);
    expect(failed).not.toContain('Loading notifications');
    expect(recovered).not.toContain('role="alert"');
    expect(recovered).toContain('role="feed"');
  });

  it('says when there is nothing yet', async () => {
    const { client } = aClient([]);
    await client.start();
    expect(render(client, h(NotificationFeed))).toContain('No notifications yet');
  });
});

describe('NotificationFeed items', () => {
  it('are focusable articles that say unread in text, offer "Mark as read", and render the type\'s link and buttons', async () => {
    // Prepare
    const { client } = aClient([mention, aClientNotification(T0 + SECOND, 'evt-plain', { actionUrl: 'javascript:alert(1)' })]);
    await client.start();

    // Act
    const withHandler = render(client, h(NotificationFeed, { onAction: () => undefined }));
    const withoutHandler = render(client, h(NotificationFeed));

    // Assess
    expect(withHandler).toContain('role="feed"');
    expect(withHandler.match(/<article class="sn-item sn-item-unread" tabindex="0" aria-posinset="\d" aria-setsize="2"/g)).toHaveLength(2);
    expect(withHandler.match(/<span class="sn-visually-hidden">Unread: <\/span>/g)).toHaveLength(2);
    expect(withHandler.match(/>Mark as read<\/button>/g)).toHaveLength(2);
    expect(withHandler).toContain('<a class="sn-item-link" href="https://app.example.com/posts/1">Bob mentioned you</a>');
    expect(withHandler).toContain('<a class="sn-action" href="https://app.example.com/posts/1">Open</a>');
    expect(withHandler).toContain('<button type="button" class="sn-action">Reply</button>');
    // A link the server would never send is not rendered as one.
    expect(withHandler).not.toContain('javascript:');
    // Without a handler an action-id button would do nothing: it is left out.
    expect(withoutHandler).not.toContain('>Reply</button>');
    expect(withoutHandler).toContain('>Open</a>');
  });

  it('take every text from the labels, times in the locale or from the formatter, and add className to the defaults', async () => {
    // Prepare
    const { client } = aClient([aClientNotification(NOW - 5 * 60 * SECOND, 'evt-recent')]);
    await client.start();
    const labels = { notifications: 'Benachrichtigungen', unread: 'Ungelesen', markRead: 'Als gelesen markieren', markAllRead: 'Alle als gelesen markieren', notificationsWithCount: (count: string) => `Benachrichtigungen, ${count} neu` };
    const now = Date.now;
    Date.now = () => NOW;

    // Act
    let german: string;
    let custom: string;
    try {
      german = renderToString(h(InboxProvider, { client, labels, locale: 'de' }, h(NotificationBell, { className: 'app-bell' }), h(NotificationFeed, { className: 'app-feed' })));
      custom = render(client, h(NotificationFeed, { formatTime: (date) => `at ${date.toISOString()}` }));
    } finally {
      Date.now = now;
    }

    // Assess
    expect(german).toContain('aria-label="Benachrichtigungen, 1 neu"');
    expect(german).toContain('class="sn-bell app-bell"');
    expect(german).toContain('class="sn-feed app-feed"');
    expect(german).toContain('>Benachrichtigungen</h2>');
    expect(german).toContain('Ungelesen: ');
    expect(german).toContain('>Als gelesen markieren</button>');
    expect(german).toContain('>Alle als gelesen markieren</button>');
    expect(german).toContain('vor 5 Minuten');
    expect(custom).toContain(`at ${new Date(NOW - 5 * 60 * SECOND).toISOString()}`);
  });

  it('format relative times in the largest whole unit', () => {
    const format = relativeTimeFormatter('en');
    const now = new Date(NOW);
    expect(format(new Date(NOW - 10 * SECOND), now)).toBe('10 seconds ago');
    expect(format(new Date(NOW - 90 * 60 * SECOND), now)).toBe('1 hour ago');
    expect(format(new Date(NOW - 86_400 * SECOND), now)).toBe('yesterday');
    expect(format(new Date(NOW), now)).toBe('now');
    // The server's clock a little ahead of this device's: not "in 2 seconds".
    expect(format(new Date(NOW + 2 * SECOND), now)).toBe('now');
    expect(format(new Date(NOW + 3 * 3_600 * SECOND), now)).toBe('in 3 hours');
    expect(relativeTimeFormatter('fr')(new Date(NOW - 3 * 86_400 * SECOND), now)).toBe('il y a 3 jours');
  });
});

describe('NotificationCenter and the bell', () => {
  it('is a disclosure: the bell says aria-expanded and controls the hidden panel, with an inline SVG icon', async () => {
    const { client } = aClient([mention]);
    await client.start();
    const closed = render(client, h(NotificationCenter));
    const open = render(client, h(NotificationCenter, { defaultOpen: true }));
    const panelId = /aria-controls="([^"]+)"/.exec(closed)?.[1];
    expect(closed).toContain('aria-expanded="false"');
    expect(panelId).toBeDefined();
    expect(closed).toContain(`<div class="sn-panel" id="${panelId}" hidden="">`);
    expect(closed).toMatch(/<svg class="sn-bell-icon"[^>]*aria-hidden="true"/);
    expect(open).toContain('aria-expanded="true"');
    expect(open).not.toContain('hidden=""');
  });

  it('takes an icon of the app\'s own in the icon slot', async () => {
    const { client } = aClient([]);
    await client.start();
    const html = render(client, h(NotificationBell, { icon: h('img', { src: '/bell.svg', alt: '' }) }));
    expect(html).toContain('<img src="/bell.svg" alt=""/>');
    expect(html).not.toContain('sn-bell-icon');
    expect(html).toContain('aria-label="Notifications"');
  });
});
