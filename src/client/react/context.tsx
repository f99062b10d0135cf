/**
 * The client the hooks and components use when none is passed, and the presentation settings
 * shared by every component under one provider: labels, locale and the time formatter.
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import type { InboxClient } from '../inbox-client.js';
import { absoluteTimeFormatter, relativeTimeFormatter, type TimeFormatter } from './format-time.js';
import { defaultLabels, type InboxLabels } from './labels.js';

/** What a component shows texts and times with; each prop overrides the provider's. */
export interface PresentationProps {
  /** Texts to replace (the rest keep their English defaults). */
  labels?: Partial<InboxLabels>;
  /** BCP 47 locale of the times (default: the browser's). */
  locale?: string;
  /** Formats an item's time (default: `Intl.RelativeTimeFormat` in `locale`). */
  formatTime?: TimeFormatter;
}

export interface Presentation {
  labels: InboxLabels;
  formatTime: TimeFormatter;
  formatFullTime: (date: Date) => string;
}

interface InboxContextValue extends PresentationProps {
  client: InboxClient | null;
}

const InboxContext = createContext<InboxContextValue>({ client: null });

export interface InboxProviderProps extends PresentationProps {
  client: InboxClient;
  children?: ReactNode;
}

/** Makes `client` (and the labels, locale and time formatter) the ones the hooks and components below use. */
export function InboxProvider({ client, labels, locale, formatTime, children }: InboxProviderProps): ReactNode {
  const value = useMemo(() => ({ client, labels, locale, formatTime }), [client, labels, locale, formatTime]);
  return <InboxContext.Provider value={value}>{children}</InboxContext.Provider>;
}

/** The client passed, or the provider's; throws when there is neither. */
export function useInboxClient(client?: InboxClient): InboxClient {
  const provided = useContext(InboxContext).client;
  const resolved = client ?? provided;
  if (!resolved) throw new Error('no inbox client: pass one to the hook or render an <InboxProvider client={...}> above');
  return resolved;
}

/** The labels and formatters of a component: its props over the provider's over the defaults. */
export function usePresentation(props: PresentationProps): Presentation {
  const provided = useContext(InboxContext);
  const locale = props.locale ?? provided.locale;
  const formatTime = props.formatTime ?? provided.formatTime;
  const ownLabels = props.labels;
  const providedLabels = provided.labels;
  return useMemo(
    () => ({
      labels: { ...defaultLabels, ...providedLabels, ...ownLabels },
      formatTime: formatTime ?? relativeTimeFormatter(locale),
      formatFullTime: absoluteTimeFormatter(locale),
    }),
    [ownLabels, providedLabels, locale, formatTime],
  );
}
