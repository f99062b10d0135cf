/**
 * One notification as an `article` of the feed: focusable, its title a link when the type gave an
 * `actionUrl`, its `actions` as links (url) or buttons (actionId, handled by `onAction`), "Unread"
 * said in text, and a "Mark as read" button while unread.
 */
import { useId, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import type { Notification, NotificationAction } from '../types.js';
import { classNames } from './class-names.js';
import type { Presentation } from './context.js';

/** http and https only (the server allows no other, and a link is never trusted twice as much as its source). */
export function safeLinkUrl(url: string | undefined): string | undefined {
  return url !== undefined && /^https?:\/\//i.test(url) ? url : undefined;
}

export interface NotificationItemProps {
  notification: Notification;
  /** 1-based place in the feed, and the feed's size (-1 while older pages exist). */
  position: number;
  setSize: number;
  presentation: Presentation;
  now: Date;
  markRead(notification: Notification): void;
  /** A button of the type's `actions` with an `actionId` was pressed; without it such buttons are not shown. */
  onAction?: (actionId: string, notification: Notification) => void;
  /** Replaces the content (title, body, time, actions); the item keeps its frame, read state and button. */
  renderItem?: (notification: Notification) => ReactNode;
}

function ActionControl({ action, notification, onAction }: { action: NotificationAction; notification: Notification; onAction: NotificationItemProps['onAction'] }): ReactNode {
  const href = safeLinkUrl(action.url);
  if (href) {
    return (
      <a className="sn-action" href={href}>
        {action.label}
      </a>
    );
  }
  if (action.actionId === undefined || !onAction) return null;
  const actionId = action.actionId;
  return (
    <button type="button" className="sn-action" onClick={() => onAction(actionId, notification)}>
      {action.label}
    </button>
  );
}

export function NotificationItem({ notification, position, setSize, presentation, now, markRead, onAction, renderItem }: NotificationItemProps): ReactNode {
  const { labels, formatTime, formatFullTime } = presentation;
  const titleId = useId();
  const bodyId = useId();
  const unread = !notification.read;
  const href = safeLinkUrl(notification.actionUrl);
  const created = new Date(notification.createdAt);
  // A click anywhere on an unread item (its link and buttons included) reads it.
  const onClick = () => {
    if (unread) markRead(notification);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.target === event.currentTarget && (event.key === 'Enter' || event.key === ' ') && unread) {
      event.preventDefault();
      markRead(notification);
    }
  };
  const onMarkRead = (event: MouseEvent<HTMLButtonElement>) => {
    event.stopPropagation();
    markRead(notification);
  };
  const content = renderItem ? (
    renderItem(notification)
  ) : (
    <>
      <p className="sn-item-title" id={titleId}>
        {unread ? <span className="sn-visually-hidden">{`${labels.unread}: `}</span> : null}
        {href ? (
          <a className="sn-item-link" href={href}>
            {notification.title}
          </a>
        ) : (
          notification.title
        )}
      </p>
      {notification.body ? (
        <p className="sn-item-body" id={bodyId}>
          {notification.body}
        </p>
      ) : null}
      <time className="sn-item-time" dateTime={notification.createdAt} title={formatFullTime(created)}>
        {formatTime(created, now)}
      </time>
      {notification.actions && notification.actions.length > 0 ? (
        <div className="sn-item-actions">
          {notification.actions.map((action, index) => (
            <ActionControl key={`${index}-${action.label}`} action={action} notification={notification} onAction={onAction} />
          ))}
        </div>
      ) : null}
    </>
  );
  return (
    <article
      className={classNames('sn-item', unread && 'sn-item-unread')}
      tabIndex={0}
      aria-posinset={position}
      aria-setsize={setSize}
      aria-labelledby={renderItem ? undefined : titleId}
      aria-describedby={renderItem || !notification.body ? undefined : bodyId}
      data-id={notification.id}
      data-read={notification.read}
      onClick={onClick}
      onKeyDown={onKeyDown}
    >
      {unread ? <span className="sn-unread-dot" aria-hidden="true" /> : null}
      {unread && renderItem ? <span className="sn-visually-hidden">{labels.unread}</span> : null}
      <div className="sn-item-content">{content}</div>
      {unread ? (
        <button type="button" className="sn-item-mark" aria-describedby={renderItem ? undefined : titleId} onClick={onMarkRead}>
          {labels.markRead}
        </button>
      ) : null}
    </article>
  );
}
