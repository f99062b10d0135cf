/** The demo page's publisher: a card per catalog type with its sample event, published with PutEvents to the local bus. */
import { config, element, ui } from './dom.js';

export interface SampleEvent {
  detailType: string;
  detail: Record<string, unknown>;
}

export interface CatalogType {
  detailType: string;
  defaultPriority: string;
  audience: 'recipients' | 'followersOfActor' | 'none';
  digestible: boolean;
  graphEffect: 'follow' | 'unfollow' | null;
  sample: SampleEvent;
  prerequisite: SampleEvent | null;
}

function describeAudience(type: CatalogType, user: string, actor: string): string {
  if (type.graphEffect === 'unfollow') return `${user} unfollows ${actor}. Changes the follow graph; no notification.`;
  if (type.graphEffect === 'follow') return `${actor} follows ${user}: ${user} is notified.`;
  if (type.audience === 'followersOfActor') return `Goes to the followers of ${actor}. Follow ${actor} first to receive it.`;
  if (type.audience === 'recipients') return `Goes to ${user} directly.`;
  return 'No notification.';
}

let publishCount = 0;
async function publish(event: SampleEvent, times = 1): Promise<string> {
  const entries = Array.from({ length: times }, () => {
    publishCount += 1;
    // A fresh producer id per click (the id is the idempotency key) and a millisecond event time.
    const detail = { ...event.detail, id: `demo-${Date.now()}-${publishCount}`, time: new Date().toISOString() };
    return { Source: 'demo.inbox-page', DetailType: event.detailType, Detail: JSON.stringify(detail), EventBusName: config.eventBusName };
  });
  const response = await fetch('/', {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
    body: JSON.stringify({ Entries: entries }),
  });
  const body = (await response.json().catch(() => ({}))) as {
    FailedEntryCount?: number;
    Entries?: Array<{ EventId?: string; ErrorCode?: string; ErrorMessage?: string }>;
    message?: string;
  };
  if (!response.ok) throw new Error(body.message ?? `PutEvents answered ${response.status}`);
  const failed = body.Entries?.find((entry) => entry.ErrorCode);
  if (failed) throw new Error(`${failed.ErrorCode}: ${failed.ErrorMessage}`);
  return times === 1 ? 'Published.' : `Published ${times} events.`;
}

function typeCard(type: CatalogType, user: string, actor: string): HTMLElement {
  const id = `detail-${type.detailType.replace(/[^a-z0-9]/gi, '-')}`;
  const textarea = element('textarea', { id, spellcheck: false, value: JSON.stringify(type.sample.detail, null, 2) });
  const result = element('p', { className: 'result', role: 'status' });
  const show = (promise: Promise<string>) => {
    result.className = 'result';
    result.textContent = 'Publishing…';
    promise
      .then((message) => {
        result.className = 'result ok';
        result.textContent = message;
      })
      .catch((error: unknown) => {
        result.className = 'result error';
        result.textContent = error instanceof Error ? error.message : String(error);
      });
  };
  const current = (): SampleEvent => ({ detailType: type.detailType, detail: JSON.parse(textarea.value) as Record<string, unknown> });
  const publishButton = element('button', { type: 'button', className: 'button' }, 'Publish');
  publishButton.setAttribute('aria-label', `Publish ${type.detailType}`);
  publishButton.addEventListener('click', () => show(Promise.resolve().then(() => publish(current()))));
  const actions = element('div', { className: 'actions' }, publishButton);
  if (type.digestible) {
    const burst = element('button', { type: 'button', className: 'button secondary' }, 'Publish 3 (digest)');
    burst.setAttribute('aria-label', `Publish 3 ${type.detailType} events`);
    burst.addEventListener('click', () => show(Promise.resolve().then(() => publish(current(), 3))));
    actions.append(burst);
  }
  if (type.prerequisite) {
    const prerequisite = type.prerequisite;
    const follow = element('button', { type: 'button', className: 'button secondary' }, `Make ${user} follow ${actor}`);
    follow.addEventListener('click', () => show(publish(prerequisite).then(() => `${user} now follows ${actor}.`)));
    actions.append(follow);
  }
  return element(
    'article',
    { className: 'type-card' },
    element('h3', {}, type.detailType),
    element(
      'div',
      { className: 'chips' },
      element('span', { className: 'chip' }, type.defaultPriority),
      ...(type.digestible ? [element('span', { className: 'chip' }, 'digestible')] : []),
      element('span', { className: 'chip' }, type.audience === 'followersOfActor' ? 'followers of actor' : type.audience),
    ),
    element('p', { className: 'muted' }, describeAudience(type, user, actor)),
    element('label', { htmlFor: id, className: 'sr-only' }, `Event detail of ${type.detailType} (JSON)`),
    textarea,
    actions,
    result,
  );
}

export async function loadCatalog(): Promise<void> {
  const tenant = ui.tenant.value.trim();
  const user = ui.user.value.trim();
  const actor = ui.actor.value.trim() || 'bob';
  const query = new URLSearchParams({ tenant, user, actor });
  const response = await fetch(`/dev/catalog?${query.toString()}`);
  const { types } = (await response.json()) as { types: CatalogType[] };
  ui.types.replaceChildren(...types.map((type) => typeCard(type, user, actor)));
}
