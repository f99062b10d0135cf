/** The bell: a button with the unseen count that opens the feed (the disclosure's button when `expanded` is given). */
import type { ReactNode, Ref } from 'react';
import type { InboxClient } from '../inbox-client.js';
import type { BadgeCounts } from '../types.js';
import { classNames } from './class-names.js';
import { usePresentation, useInboxClient, type PresentationProps } from './context.js';
import { useCounts } from './hooks.js';

/** "3", or "99+" when the server capped the count. */
export function badgeText(count: number, capped: boolean): string {
  return capped ? `${count}+` : String(count);
}

/** The bell's text: the unseen count, with "+" only when it reached the cap (`capped` is said of unread, which unseen never exceeds). */
export function unseenBadgeText(counts: BadgeCounts): string {
  return badgeText(counts.unseen, counts.capped && counts.unseen >= counts.unread);
}

/** The default icon: an inline SVG (no icon font, no emoji font needed), drawn in the text colour. */
export function BellIcon(): ReactNode {
  return (
    <svg className="sn-bell-icon" viewBox="0 0 24 24" width="1.25em" height="1.25em" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Zm-2 1H7v-6a5 5 0 0 1 10 0v6Z"
      />
    </svg>
  );
}

export interface NotificationBellProps extends PresentationProps {
  client?: InboxClient;
  /** Called when the bell is clicked to open (the badge is cleared with `markAllSeen`), e.g. to show the feed. */
  onOpen?: () => void;
  /** Called when the bell is clicked while `expanded`. */
  onClose?: () => void;
  /** Whether the panel it opens is shown (`aria-expanded`); leave it out when the bell opens nothing of its own. */
  expanded?: boolean;
  /** The id of the panel it opens (`aria-controls`). */
  controls?: string;
  /** Replaces the bell icon (the default is an inline SVG). */
  icon?: ReactNode;
  /** A failed `markAllSeen`. Default: `console.error`. */
  onError?: (error: unknown) => void;
  /** Added to `sn-bell`. */
  className?: string;
  buttonRef?: Ref<HTMLButtonElement>;
}

export function logError(error: unknown): void {
  console.error('notification inbox:', error);
}

/**
 * A button named "Notifications" (or "Notifications, 3 new"); its badge shows the unseen count.
 * Opening it marks everything seen (not read). Classes: `sn-bell`, `sn-bell-badge`.
 */
export function NotificationBell(props: NotificationBellProps): ReactNode {
  const { client, onOpen, onClose, expanded, controls, icon, onError = logError, className, buttonRef } = props;
  const inbox = useInboxClient(client);
  const counts = useCounts(inbox);
  const { labels } = usePresentation(props);
  const count = unseenBadgeText(counts);
  const toggle = () => {
    if (expanded) {
      onClose?.();
      return;
    }
    onOpen?.();
    if (counts.unseen > 0) inbox.markAllSeen().catch(onError);
  };
  return (
    <button
      type="button"
      ref={buttonRef}
      className={classNames('sn-bell', className)}
      aria-label={counts.unseen > 0 ? labels.notificationsWithCount(count) : labels.notifications}
      aria-expanded={expanded}
      aria-controls={controls}
      onClick={toggle}
    >
      {icon ?? <BellIcon />}
      {counts.unseen > 0 ? (
        <span className="sn-bell-badge" aria-hidden="true">
          {count}
        </span>
      ) : null}
    </button>
  );
}
