/**
 * What one notification type declares: the port the catalog (`src/notifications/`, one file per
 * type) implements and the core (validation, fan-out) and the CDK app read.
 */
import type { z } from 'zod';
import type { Actor } from '../model/notification.js';
import type { Priority } from '../jobs/delivery-job.js';
import type { ChannelDefaults } from '../model/channel.js';
import type { EscalationRule } from '../model/channel.js';

export type Audience =
  /** The event's `recipients`. */
  | 'recipients'
  /** The followers of the event's actor (two-tier fan-out), plus any direct `recipients`. */
  | 'followersOfActor'
  /** No notification (graph-only events). */
  | 'none';

export type GraphEffect = 'follow' | 'unfollow';

interface NotificationTypeFields<Data> {
  /** EventBridge DetailType, also the `type` clients see. */
  detailType: string;
  dataSchema: z.ZodType<Data>;
  defaultPriority: Priority;
  audience: Audience;
  /** Info notifications of a digestible type that land in one batching window collapse into one digest. */
  digestible: boolean;
  /** Whether an urgent notification of this type is pushed during the user's quiet hours. Default true. */
  urgentBypassesQuietHours?: boolean;
  /**
   * Channels beyond the inbox and socket: each declared channel is offered with its default for users
   * who never switched it (`{ push: true }`: pushed unless switched off; push still needs consent).
   */
  channels?: ChannelDefaults;
  /**
   * After `afterSeconds`, send on `channel` (one the type offers) only if the notification is still
   * unseen (`when: 'unseen'`) or unread; a user can turn it off per type (`channels.<type>.escalation`).
   */
  escalation?: EscalationRule;
  /**
   * Push / email when the consumer crashes between the dedup claim and the provider's answer:
   * `at-most-once` (default: that send is lost, never doubled) or `at-least-once` (the claim records
   * `sending` then `sent`; one left `sending` past the timeout is sent again: a duplicate is possible).
   */
  deliveryGuarantee?: 'at-most-once' | 'at-least-once';
  /**
   * Post alerts: followers who turned alerts on for the actor (`PUT /alerts/{accountId}`) are pushed
   * this type's notifications whatever its push default. Needs audience `followersOfActor` and push offered.
   */
  followerAlerts?: boolean;
  /** Push and email carry a generic text and the notification id, never the content (the app fetches it after authentication). */
  sensitive?: boolean;
  /** Recipients implied by the data (e.g. the followee of a follow), added to the envelope's. */
  recipientsFromData?(data: Data): string[];
  render(input: { actor: Actor; data: Data }): { title: string; body: string };
  /** Tabs: the category a type belongs to (e.g. "social", "mentions"), for `category=` filters and counts. */
  category?: string;
  /** Tags for `tags=` filters. */
  tags?: readonly string[];
  /** The link a click opens and up to two buttons, from the data (sanitized at read: http/https only). */
  links?(data: Data): { actionUrl?: string; actions?: { label: string; url?: string; actionId?: string }[] };
  /** A retraction type: names the event it withdraws (no notification of its own). */
  retraction?(data: Data): { eventId: string; type: string };
}

/** A side effect on the follow graph, applied before fan-out, names the followee (the actor is the follower). */
type GraphEffectFields<Data> = { graphEffect?: undefined; followeeOf?: undefined } | { graphEffect: GraphEffect; followeeOf(data: Data): string };

/**
 * `Data` is the type of the validated `data`; the catalog holds types of different data as
 * `NotificationType` (plain records), each one's methods only ever see data its schema accepted.
 */
export type NotificationType<Data = Record<string, unknown>> = NotificationTypeFields<Data> & GraphEffectFields<Data>;
