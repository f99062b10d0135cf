/** HTTP plumbing shared by the REST handlers: identity from the authorizer, JSON, error mapping. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';
import { ZodError } from 'zod';
import { NotFoundError, Unauthorized, ValidationError } from '../../core/model/errors.js';
import { claimAt } from '../../core/model/claims.js';
import { IDENTIFIER_PATTERN } from '../../core/model/keys.js';
import type { UserRef } from '../../core/model/user.js';

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

export function json(statusCode: number, body?: unknown): APIGatewayProxyResult {
  return body === undefined ? { statusCode, headers: JSON_HEADERS, body: '' } : { statusCode, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

export function errorBody(code: string, message: string, details?: unknown) {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/**
 * The caller, from the API Gateway authorizer only: a Lambda authorizer's context
 * (`tenantId`, `userId`) in `jwt` mode, or the Cognito authorizer's verified claims.
 */
export function identityFrom(event: APIGatewayProxyEvent, tenantClaim: string): UserRef {
  const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  const claims = (authorizer?.claims ?? {}) as Record<string, unknown>;
  const tenantId = authorizer?.tenantId ?? claimAt(claims, tenantClaim);
  const userId = authorizer?.userId ?? claims.sub;
  if (typeof tenantId !== 'string' || typeof userId !== 'string' || !IDENTIFIER_PATTERN.test(tenantId) || !IDENTIFIER_PATTERN.test(userId)) {
    throw new Unauthorized('no verified identity on the request');
  }
  return { tenantId, userId };
}

/** Named errors to status codes, in one place. A 500 never carries internals to the client. */
export function errorResponse(error: unknown, logger: Logger): APIGatewayProxyResult {
  if (error instanceof ZodError) {
    // An unknown field is named by its own path (`theme`, `__proto__`), not the object that holds it.
    const details = error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ path: [...issue.path, key].join('.'), message: 'unknown field' }))
        : [{ path: issue.path.join('.') || '(root)', message: issue.message }],
    );
    return json(400, errorBody('validation_error', `invalid request: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details));
  }
  if (error instanceof ValidationError) return json(400, errorBody(error.code, error.message, error.details));
  if (error instanceof Unauthorized) return json(401, errorBody('unauthorized', 'missing, invalid or expired token'));
  if (error instanceof NotFoundError) return json(404, errorBody('not_found', error.message));
  logger.error('unhandled error', { error: error as Error });
  return json(500, errorBody('internal_error', 'internal error'));
}

/** The CORS headers of an answer to `origin` (a browser app on another origin than the API). */
export function corsHeaders(origin: string | undefined, allowedOrigins: readonly string[]): Record<string, string> {
  if (allowedOrigins.includes('*')) return { 'access-control-allow-origin': '*' };
  if (origin !== undefined && allowedOrigins.includes(origin)) return { 'access-control-allow-origin': origin, vary: 'Origin' };
  return {};
}

export function requestOrigin(event: APIGatewayProxyEvent): string | undefined {
  return Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'origin')?.[1] ?? undefined;
}

/** Adds the CORS headers for the request's origin to a handler's answer. */
export function withCors(result: APIGatewayProxyResult, event: APIGatewayProxyEvent, allowedOrigins: readonly string[]): APIGatewayProxyResult {
  return { ...result, headers: { ...result.headers, ...corsHeaders(requestOrigin(event), allowedOrigins) } };
}

export function parseJsonBody(event: APIGatewayProxyEvent): unknown {
  if (event.body === null || event.body === undefined || event.body.trim() === '') return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('body is not valid JSON', [{ path: 'body', message: 'not JSON' }], 'invalid_json');
  }
}

export type RestHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/**
 * One REST function serving several routes, keyed `"<METHOD> <resource>"` as API Gateway names
 * them: named errors become their status codes, and every answer gets the CORS headers.
 */
export function restDispatcher(routes: Record<string, RestHandler>, options: { logger: Logger; corsAllowOrigins: readonly string[] }): RestHandler {
  const answer: RestHandler = async (event) => {
    const route = routes[`${event.httpMethod} ${event.resource}`];
    if (!route) return json(404, errorBody('not_found', `no route for ${event.httpMethod} ${event.path}`));
    try {
      return await route(event);
    } catch (error) {
      return errorResponse(error, options.logger);
    }
  };
  return async (event) => withCors(await answer(event), event, options.corsAllowOrigins);
}
