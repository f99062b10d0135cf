/**
 * What makes a catalog servable, checked where one is taken in: the construct at synth
 * (`lib/catalog.ts`) and the local runtime at start (`CATALOG_ENTRY`), so a bad catalog fails
 * with the type's name, never a deploy, a cold start or a first event.
 */
import type { NotificationType } from '../core/ports/notification-type.js';
import { resourceNameOf } from './notification-type.js';
import { MAX_ESCALATION_SECONDS } from '../core/model/channel.js';

/**
 * EventBridge detail types of the catalog: lowercase words joined by `.`, `-` or `_`
 * (`mention.created`, `invoice-paid`), up to 64 characters, so resource ids and names derived from
 * them stay readable and unique.
 */
export const DETAIL_TYPE_PATTERN = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/;
const MAX_DETAIL_TYPE_LENGTH = 64;
const PRIORITIES = ['urgent', 'info'];
const AUDIENCES = ['recipients', 'followersOfActor', 'none'];
const GRAPH_EFFECTS = ['follow', 'unfollow'];

/** Every problem of the catalog at once, each naming its type (one synth shows them all). */
export function catalogProblems(types: readonly NotificationType[]): string[] {
  const problems: string[] = [];
  if (types.length === 0) problems.push('the catalog is empty: pass at least one type');
  const byResourceName = new Map<string, string>();
  types.forEach((type: Partial<NotificationType> | undefined, index) => {
    const detailType = type?.detailType;
    const label = typeof detailType === 'string' ? detailType : `#${index}`;
    if (typeof type !== 'object' || type === null) {
      problems.push(`type #${index} is not an object (use defineNotificationType)`);
      return;
    }
    if (typeof detailType !== 'string' || detailType.length > MAX_DETAIL_TYPE_LENGTH || !DETAIL_TYPE_PATTERN.test(detailType)) {
      problems.push(`type ${label}: detailType ${JSON.stringify(detailType)} must be lowercase words joined by '.', '-' or '_' (e.g. 'invoice.paid'), at most ${MAX_DETAIL_TYPE_LENGTH} characters`);
    } else {
      // Resource ids come from the name (`invoice.paid` -> `InvoicePaid`), so `invoice-paid` would collide.
      const resourceName = resourceNameOf(detailType);
      const clash = byResourceName.get(resourceName);
      if (clash === detailType) problems.push(`type ${label} is in the catalog twice`);
      else if (clash !== undefined) problems.push(`types ${clash} and ${detailType} share the resource name ${resourceName}: rename one`);
      else byResourceName.set(resourceName, detailType);
    }
    const schema = type.dataSchema as { safeParse?: unknown } | undefined;
    if (typeof schema?.safeParse !== 'function') problems.push(`type ${label}: dataSchema is missing or not a zod schema`);
    if (typeof type.render !== 'function') problems.push(`type ${label}: render is missing`);
    if (!PRIORITIES.includes(type.defaultPriority as string)) problems.push(`type ${label}: defaultPriority must be one of ${PRIORITIES.join(', ')}, got ${JSON.stringify(type.defaultPriority)}`);
    if (!AUDIENCES.includes(type.audience as string)) problems.push(`type ${label}: audience must be one of ${AUDIENCES.join(', ')}, got ${JSON.stringify(type.audience)}`);
    if (typeof type.digestible !== 'boolean') problems.push(`type ${label}: digestible must be true or false`);
    const escalation = type.escalation;
    if (escalation !== undefined) {
      const offered = type.channels?.[escalation.channel] !== undefined;
      if (!offered) problems.push(`type ${label}: escalation.channel ${JSON.stringify(escalation.channel)} must be a channel the type offers (declare it in channels)`);
      if (!Number.isInteger(escalation.afterSeconds) || escalation.afterSeconds < 1 || escalation.afterSeconds > MAX_ESCALATION_SECONDS) problems.push(`type ${label}: escalation.afterSeconds must be an integer from 1 to ${MAX_ESCALATION_SECONDS}`);
      if (escalation.when !== 'unseen' && escalation.when !== 'unread') problems.push(`type ${label}: escalation.when must be 'unseen' or 'unread'`);
    }
    if (type.deliveryGuarantee !== undefined && type.deliveryGuarantee !== 'at-most-once' && type.deliveryGuarantee !== 'at-least-once') problems.push(`type ${label}: deliveryGuarantee must be 'at-most-once' or 'at-least-once'`);
    if (type.followerAlerts !== undefined && (type.followerAlerts !== true || type.audience !== 'followersOfActor' || type.channels?.push === undefined)) problems.push(`type ${label}: followerAlerts needs audience 'followersOfActor' and the push channel offered`);
    if (type.graphEffect !== undefined && (!GRAPH_EFFECTS.includes(type.graphEffect) || typeof type.followeeOf !== 'function')) {
      problems.push(`type ${label}: graphEffect must be one of ${GRAPH_EFFECTS.join(', ')} with a followeeOf function`);
    }
  });
  return problems;
}
