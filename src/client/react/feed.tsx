/**
 * The feed (WAI-ARIA feed pattern): a region with a heading and "Mark all read", then one of its
 * states (loading, the error with "Try again", empty, or the `role="feed"` list of articles, newest
 * first) and "Load more"; a status line says when the socket is reconnecting or the browser is
 * offline, and a failed action is announced. Page Down / Page Up move between items.
 */
import { useCallback, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { inboxErrorOf, type InboxError } from '../inbox-error.js';
import type { InboxClient } from '../inbox-client.js';
import type { Notification } from '../types.js';
import { logError } from './bell.js';
import { classNames } from './class-names.js';
import { usePresentation, type PresentationProps } from './context.js';
import { NotificationItem } from './feed-item.js';
import { useInbox, useNow, useOnline } from './hooks.js';
import { errorText, type InboxLabels } from './labels.js';

export interface NotificationFeedProps extends PresentationProps {
  client?: InboxClient;
  /** Replaces one notification's content (default: title, body, time, actions); the feed keeps the frame, the read state and the button. */
  renderItem?: (notification: Notification) => ReactNode;
  /** A button of a type's `actions` with an `actionId` was pressed (without it, such buttons are not shown). */
  onAction?: (actionId: string, notification: Notification) => void;
  /** A failed action (mark read, mark all read, load more), after the feed announced it. Default: `console.error`. */
  onError?: (error: unknown) => void;
  /** Added to `sn-feed`. */
  className?: string;
  id?: string;
  /** The heading's level (default 2). */
  headingLevel?: 2 | 3 | 4 | 5 | 6;
  /** @deprecated use `labels={{ empty }}`. */
  emptyText?: string;
}

function StateMessage({ role, className, children }: { role?: 'status' | 'alert'; className?: string; children: ReactNode }): ReactNode {
  return (
    <div className={classNames('sn-state', className)} role={role}>
      {children}
    </div>
  );
}

function ErrorMessage({ error, labels, onRetry, onDismiss }: { error: InboxError; labels: InboxLabels; onRetry?: () => void; onDismiss?: () => void }): ReactNode {
  return (
    <StateMessage role="alert" className={classNames('sn-state-error', `sn-error-${error.kind}`)}>
      <p>{errorText(labels, error.kind)}</p>
      {onRetry ? (
        <button type="button" className="sn-button" onClick={onRetry}>
          {labels.retry}
        </button>
      ) : null}
      {onDismiss ? (
        <button type="button" className="sn-button sn-button-quiet" onClick={onDismiss}>
          {labels.dismiss}
        </button>
      ) : null}
    </StateMessage>
  );
}

/** Page Down / Page Up from an item (or anything in it) to the next / previous item, as the feed pattern asks. */
function moveBetweenItems(event: KeyboardEvent<HTMLElement>): void {
  if (event.key !== 'PageDown' && event.key !== 'PageUp') return;
  const items = Array.from(event.currentTarget.querySelectorAll<HTMLElement>('article.sn-item'));
  const current = items.findIndex((item) => item.contains(event.target as Node));
  const next = items[event.key === 'PageDown' ? current + 1 : current - 1];
  if (current === -1 || !next) return;
  event.preventDefault();
  next.focus();
}

export function NotificationFeed(props: NotificationFeedProps): ReactNode {
  const { client, renderItem, onAction, onError = logError, className, id, headingLevel = 2, emptyText } = props;
  const inbox = useInbox(client);
  const presentation = usePresentation(emptyText === undefined ? props : { ...props, labels: { empty: emptyText, ...props.labels } });
  const { labels } = presentation;
  const online = useOnline();
  const now = useNow();
  const [actionError, setActionError] = useState<InboxError | undefined>();
  const wasOpen = useRef(false);
  if (inbox.connection === 'open') wasOpen.current = true;

  const run = useCallback(
    (action: () => Promise<unknown>) => {
      action().then(
        () => setActionError(undefined),
        (error: unknown) => {
          setActionError(inboxErrorOf(error));
          onError(error);
        },
      );
    },
    [onError],
  );
  const { markRead, markAllRead, loadMore, retry } = inbox;
  const readOne = useCallback((notification: Notification) => run(() => markRead(notification.id)), [run, markRead]);

  const Heading = `h${headingLevel}` as const;
  const reconnecting = online && wasOpen.current && (inbox.connection === 'waiting' || inbox.connection === 'connecting');
  const items = inbox.notifications;
  let body: ReactNode;
  if (!inbox.loaded && inbox.error) body = <ErrorMessage error={inbox.error} labels={labels} onRetry={() => void retry()} />;
  else if (!inbox.loaded) body = <StateMessage role="status">{labels.loading}</StateMessage>;
  else if (items.length === 0) body = <StateMessage className="sn-state-empty">{labels.empty}</StateMessage>;
  else {
    body = (
      <div role="feed" className="sn-feed-list" aria-busy={inbox.syncing || inbox.loadingMore} aria-label={labels.notifications} onKeyDown={moveBetweenItems}>
        {items.map((notification, index) => (
          <NotificationItem
            key={notification.id}
            notification={notification}
            position={index + 1}
            setSize={inbox.hasMore ? -1 : items.length}
            presentation={presentation}
            now={now}
            markRead={readOne}
            onAction={onAction}
            renderItem={renderItem}
          />
        ))}
      </div>
    );
  }

  return (
    <section className={classNames('sn-feed', className)} id={id} aria-label={labels.notifications} aria-busy={!inbox.loaded && !inbox.error}>
      <header className="sn-feed-header">
        <Heading className="sn-feed-title">{labels.notifications}</Heading>
        <button type="button" className="sn-button sn-button-quiet" disabled={inbox.counts.unread === 0} onClick={() => run(markAllRead)}>
          {labels.markAllRead}
        </button>
      </header>
      <div className="sn-feed-status" role="status">
        {!online ? labels.offline : reconnecting ? labels.reconnecting : null}
      </div>
      {inbox.loaded && inbox.error ? <ErrorMessage error={inbox.error} labels={labels} onRetry={() => void retry()} /> : null}
      {actionError ? <ErrorMessage error={actionError} labels={labels} onDismiss={() => setActionError(undefined)} /> : null}
      {body}
      {inbox.loaded && inbox.hasMore ? (
        <footer className="sn-feed-footer">
          <button type="button" className="sn-button" disabled={inbox.loadingMore} onClick={() => run(loadMore)}>
            {labels.loadMore}
          </button>
        </footer>
      ) : null}
    </section>
  );
}
