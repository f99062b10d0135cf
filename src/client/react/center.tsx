/**
 * The bell and its feed in one (WAI-ARIA disclosure): the bell says `aria-expanded` and controls the
 * panel; Escape or a click outside closes it, Escape returns focus to the bell. The panel follows the
 * bell in the tab order, so Tab goes from the bell into the feed.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { InboxClient } from '../inbox-client.js';
import type { Notification } from '../types.js';
import { NotificationBell } from './bell.js';
import { classNames } from './class-names.js';
import type { PresentationProps } from './context.js';
import { NotificationFeed } from './feed.js';

export interface NotificationCenterProps extends PresentationProps {
  client?: InboxClient;
  /** Added to `sn-center`. */
  className?: string;
  /** Added to `sn-panel`. */
  panelClassName?: string;
  /** Replaces the bell icon (default: an inline SVG). */
  icon?: ReactNode;
  /** Open at first (default false). */
  defaultOpen?: boolean;
  /** Told when the panel opens or closes. */
  onOpenChange?: (open: boolean) => void;
  renderItem?: (notification: Notification) => ReactNode;
  onAction?: (actionId: string, notification: Notification) => void;
  onError?: (error: unknown) => void;
}

export function NotificationCenter(props: NotificationCenterProps): ReactNode {
  const { client, className, panelClassName, icon, defaultOpen = false, onOpenChange, renderItem, onAction, onError, labels, locale, formatTime } = props;
  const [open, setOpenState] = useState(defaultOpen);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const bell = useRef<HTMLButtonElement>(null);
  const presentation = { labels, locale, formatTime };
  const onOpenChangeRef = useRef(onOpenChange);
  onOpenChangeRef.current = onOpenChange;
  const setOpen = (next: boolean) => {
    setOpenState(next);
    onOpenChangeRef.current?.(next);
  };
  const setOpenRef = useRef(setOpen);
  setOpenRef.current = setOpen;

  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpenRef.current(false);
      bell.current?.focus();
    };
    const onPointerDown = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpenRef.current(false);
    };
    document.addEventListener('keydown', onKeyDown);
    document.addEventListener('pointerdown', onPointerDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('pointerdown', onPointerDown);
    };
  }, [open]);

  return (
    <div className={classNames('sn-center', className)} ref={root}>
      <NotificationBell
        {...presentation}
        client={client}
        icon={icon}
        expanded={open}
        controls={panelId}
        onOpen={() => setOpen(true)}
        onClose={() => setOpen(false)}
        onError={onError}
        buttonRef={bell}
      />
      <div className={classNames('sn-panel', panelClassName)} id={panelId} hidden={!open}>
        <NotificationFeed {...presentation} client={client} renderItem={renderItem} onAction={onAction} onError={onError} />
      </div>
    </div>
  );
}
