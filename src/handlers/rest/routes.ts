/**
 * The REST routes and which function serves each. The CDK app builds API Gateway resources from this
 * list and the local runtime routes requests with it, so both expose the same API.
 */
export type RestFunction = 'inboxRead' | 'inboxWrite' | 'preferences';

export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway resource path; `{name}` is a path parameter. */
  resource: string;
  function: RestFunction;
}

export const restRoutes: readonly RestRoute[] = [
  { method: 'GET', resource: '/notifications', function: 'inboxRead' },
  { method: 'GET', resource: '/notifications/counts', function: 'inboxRead' },
  { method: 'POST', resource: '/notifications/read-all', function: 'inboxWrite' },
  { method: 'POST', resource: '/notifications/seen-all', function: 'inboxWrite' },
  { method: 'POST', resource: '/notifications/{id}/read', function: 'inboxWrite' },
  { method: 'POST', resource: '/notifications/{id}/unread', function: 'inboxWrite' },
  { method: 'POST', resource: '/notifications/{id}/seen', function: 'inboxWrite' },
  { method: 'POST', resource: '/notifications/{id}/archive', function: 'inboxWrite' },
  { method: 'POST', resource: '/notifications/{id}/unarchive', function: 'inboxWrite' },
  { method: 'POST', resource: '/notifications/{id}/snooze', function: 'inboxWrite' },
  { method: 'DELETE', resource: '/notifications/{id}', function: 'inboxWrite' },
  { method: 'POST', resource: '/notifications/archive-read', function: 'inboxWrite' },
  { method: 'POST', resource: '/notifications/bulk', function: 'inboxWrite' },
  { method: 'GET', resource: '/preferences', function: 'preferences' },
  { method: 'PUT', resource: '/preferences', function: 'preferences' },
];

/** CORS preflight answers (API Gateway's OPTIONS methods on AWS, the local gateway locally). */
export const corsPreflight = {
  allowHeaders: ['Authorization', 'Content-Type'],
  allowMethods: [...new Set(restRoutes.map((route) => route.method)), 'OPTIONS'],
  maxAgeSeconds: 3600,
} as const;
