/**
 * Local stand-in for the API Gateway REST API: matches the shared route table, runs the same
 * authorizer handler as AWS (`jwt` mode) and invokes the same handler with a proxy event.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { corsHeaders } from '../../handlers/rest/http.js';
import { AuthorizerResultCache } from './authorizer-cache.js';
import { corsPreflight, publicRoutes, restRoutes as authorizedRoutes, type RestFunction, type RestRoute } from '../../contract/rest-routes.js';

const restRoutes: readonly RestRoute[] = [...authorizedRoutes, ...publicRoutes];
import type { LocalRequest, LocalResponse, LocalRoute } from '../http/router.js';

type ProxyHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
type Authorizer = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

const STAGE = 'local';
function unauthorized(cors: Record<string, string>): LocalResponse {
  return {
    status: 401,
    headers: { 'content-type': 'application/json', ...cors },
    body: JSON.stringify({ error: { code: 'unauthorized', message: 'missing, invalid or expired token' } }),
  };
}

function preflight(cors: Record<string, string>): LocalResponse {
  return {
    status: 204,
    headers: {
      ...cors,
      'access-control-allow-headers': corsPreflight.allowHeaders.join(','),
      'access-control-allow-methods': corsPreflight.allowMethods.join(','),
      'access-control-max-age': String(corsPreflight.maxAgeSeconds),
    },
  };
}

/** A segment that is not valid percent-encoding stays raw, so the handler's validation answers 400. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function matchRoute(route: RestRoute, method: string, path: string): Record<string, string> | undefined {
  return route.method === method ? matchResource(route.resource, path) : undefined;
}

/** The path parameters when `path` fits the resource template, else undefined. */
function matchResource(resource: string, path: string): Record<string, string> | undefined {
  const templateParts = resource.split('/');
  const pathParts = path.split('/');
  if (templateParts.length !== pathParts.length) return undefined;
  const parameters: Record<string, string> = {};
  for (let i = 0; i < templateParts.length; i += 1) {
    const template = templateParts[i]!;
    const actual = pathParts[i]!;
    const parameter = template.match(/^\{(\w+)\}$/)?.[1];
    if (parameter) {
      if (actual === '') return undefined;
      parameters[parameter] = decodePathSegment(actual);
    } else if (template !== actual) return undefined;
  }
  return parameters;
}

function singleValueHeaders(request: LocalRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

export function createRestGateway(functions: Record<RestFunction, ProxyHandler>, authorizer: Authorizer, corsAllowOrigins: readonly string[] = ['*']): LocalRoute {
  // As API Gateway's resultsCacheTtl (5 min, keyed by the Authorization header), ending at the token's expiry.
  const authorizerCache = new AuthorizerResultCache();
  return {
    async handle(request) {
      const path = request.url.pathname.replace(/\/+$/, '') || '/';
      const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
      const cors = corsHeaders(origin, corsAllowOrigins);
      // Preflight: like API Gateway's OPTIONS mock integration, unauthenticated (browsers send no token).
      if (request.method === 'OPTIONS' && restRoutes.some((route) => matchResource(route.resource, path))) {
        return preflight(cors);
      }
      for (const route of restRoutes) {
        const pathParameters = matchRoute(route, request.method, path);
        if (!pathParameters) continue;
        const headers = singleValueHeaders(request);
        const query = Object.fromEntries(request.url.searchParams.entries());
        const methodArn = `arn:aws:execute-api:local:000000000000:local/${STAGE}/${route.method}${route.resource}`;
        let authorization: Pick<APIGatewayAuthorizerResult, 'principalId' | 'context'> = { principalId: 'anonymous', context: {} };
        // A route without auth (the signed unsubscribe link) reaches its handler with no identity, as on API Gateway.
        if (route.auth !== 'none') {
          const cached = authorizerCache.get(headers.authorization);
          if (cached) authorization = cached;
          else {
            try {
              authorization = await authorizer({ type: 'REQUEST', methodArn, headers, queryStringParameters: query } as APIGatewayRequestAuthorizerEvent);
            } catch {
              return unauthorized(cors);
            }
            authorizerCache.set(headers.authorization, { principalId: authorization.principalId, context: authorization.context });
          }
        }
        const event = {
          resource: route.resource,
          path,
          httpMethod: route.method,
          headers,
          multiValueHeaders: {},
          queryStringParameters: Object.keys(query).length > 0 ? query : null,
          multiValueQueryStringParameters: null,
          pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
          stageVariables: null,
          body: request.body.length > 0 ? request.body.toString('utf8') : null,
          isBase64Encoded: false,
          requestContext: {
            resourcePath: route.resource,
            httpMethod: route.method,
            path: `/${STAGE}${path}`,
            stage: STAGE,
            requestId: randomUUID(),
            requestTimeEpoch: Date.now(),
            authorizer: { principalId: authorization.principalId, ...authorization.context },
            identity: { sourceIp: request.remoteAddress },
          },
        } as unknown as APIGatewayProxyEvent;
        const result = await functions[route.function](event);
        return { status: result.statusCode, headers: (result.headers ?? {}) as Record<string, string>, body: result.body };
      }
      return undefined;
    },
  };
}
