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
  /** `none`: no token (the signed one-click unsubscribe link of an email carries its own proof). Default: the auth mode's authorizer. */
  auth?: 'none';
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
  // Channels (push devices and consent, email address, unsubscribe): src/handlers/rest/channels-api.ts.
  { method: 'GET', resource: '/devices', function: 'preferences' },
  { method: 'POST', resource: '/devices', function: 'preferences' },
  { method: 'DELETE', resource: '/devices/{id}', function: 'preferences' },
  { method: 'PUT', resource: '/push-consent', function: 'preferences' },
  { method: 'DELETE', resource: '/push-consent', function: 'preferences' },
  { method: 'PUT', resource: '/sms', function: 'preferences' },
  { method: 'DELETE', resource: '/sms', function: 'preferences' },
  { method: 'PUT', resource: '/email-address', function: 'preferences' },
  { method: 'DELETE', resource: '/email-address', function: 'preferences' },
  // Post alerts: src/handlers/rest/alerts-api.ts.
  { method: 'PUT', resource: '/alerts/{accountId}', function: 'preferences' },
  { method: 'DELETE', resource: '/alerts/{accountId}', function: 'preferences' },
];

/**
 * Routes without a token: the signed one-click unsubscribe link of an email (RFC 8058). The CDK app
 * builds them only when email is configured; the local runtime always serves them.
 */
export const publicRoutes: readonly RestRoute[] = [
  { method: 'GET', resource: '/unsubscribe', function: 'preferences', auth: 'none' },
  { method: 'POST', resource: '/unsubscribe', function: 'preferences', auth: 'none' },
];

/** CORS preflight answers (API Gateway's OPTIONS methods on AWS, the local gateway locally). */
export const corsPreflight = {
  allowHeaders: ['Authorization', 'Content-Type'],
  allowMethods: [...new Set([...restRoutes, ...publicRoutes].map((route) => route.method)), 'OPTIONS'],
  maxAgeSeconds: 3600,
} as const;
