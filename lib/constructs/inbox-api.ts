import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  CognitoUserPoolsAuthorizer,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  RequestValidator,
  ResponseType,
  RestApi,
  type IAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { corsPreflight, publicRoutes, restRoutes, type RestFunction } from '../../src/contract/rest-routes.js';
import { acknowledge } from '../nag.js';
import type { HandlerFunction } from './handler-function.js';

/** `cognito`: the stack's user pool authorizes; `jwt`: the Lambda authorizer verifies the IdP's token. */
export type InboxApiAuth = { mode: 'cognito'; userPool: IUserPool } | { mode: 'jwt'; authorizer: HandlerFunction };

export interface InboxApiProps {
  /** The function serving each `RestFunction` of `src/contract/rest-routes.ts`. */
  functions: Record<RestFunction, HandlerFunction>;
  auth: InboxApiAuth;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  stageName?: string;
  /** `*` or exact origins allowed to call from a browser (preflight and error answers). */
  corsAllowOrigins: readonly string[];
  /** Also build the routes without a token (`publicRoutes`: the email unsubscribe link); only when email is configured. */
  publicRoutes?: boolean;
}

/** Our error format for answers API Gateway gives before a handler runs. */
function errorTemplate(code: string, message: string): Record<string, string> {
  return { 'application/json': `{"error":{"code":"${code}","message":${message}}}` };
}

const quoted = (text: string) => JSON.stringify(text);

/**
 * The REST API (API Gateway REST API v1): resources built from `restRoutes`, every method behind
 * the authorizer of the auth mode, request validation (path parameters declared from the route
 * template), JSON access logs, and gateway responses in the `{"error":{"code","message"}}` format.
 */
export class InboxApi extends Construct {
  readonly api: RestApi;
  readonly authorizer: IAuthorizer;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: InboxApiProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy });

    this.api = new RestApi(this, 'Api', {
      description: 'Notification inbox REST API',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // OPTIONS mock methods on every resource, no authorizer: browsers send preflights without a token.
      defaultCorsPreflightOptions: {
        allowOrigins: [...props.corsAllowOrigins],
        allowHeaders: [...corsPreflight.allowHeaders],
        allowMethods: [...corsPreflight.allowMethods],
        maxAge: Duration.seconds(corsPreflight.maxAgeSeconds),
      },
      // Execution logs (ERROR level) need the account-level API Gateway CloudWatch role.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stageName ?? 'v1',
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: MethodLoggingLevel.ERROR,
        // Bodies and tokens stay out of the logs.
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: true,
      },
    });

    this.authorizer =
      props.auth.mode === 'cognito'
        ? new CognitoUserPoolsAuthorizer(this, 'CognitoAuthorizer', { cognitoUserPools: [props.auth.userPool], resultsCacheTtl: Duration.minutes(5) })
        : new RequestAuthorizer(this, 'JwtAuthorizer', {
            handler: props.auth.authorizer,
            identitySources: [IdentitySource.header('Authorization')],
            resultsCacheTtl: Duration.minutes(5),
          });

    const validator = new RequestValidator(this, 'Validator', {
      restApi: this.api,
      validateRequestBody: true,
      validateRequestParameters: true,
    });

    const integrations = new Map<RestFunction, LambdaIntegration>();
    for (const route of [...restRoutes, ...(props.publicRoutes ? publicRoutes : [])]) {
      let integration = integrations.get(route.function);
      if (!integration) {
        integration = new LambdaIntegration(props.functions[route.function], { allowTestInvoke: false });
        integrations.set(route.function, integration);
      }
      const resource = this.api.root.resourceForPath(route.resource);
      const pathParameters = [...route.resource.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
      const method = resource.addMethod(route.method, integration, {
        ...(route.auth === 'none' ? { authorizationType: AuthorizationType.NONE } : { authorizer: this.authorizer, authorizationType: props.auth.mode === 'cognito' ? AuthorizationType.COGNITO : AuthorizationType.CUSTOM }),
        requestValidator: validator,
        requestParameters: Object.fromEntries(pathParameters.map((name) => [`method.request.path.${name}`, true])),
      });
      if (route.auth === 'none') {
        const reason = 'The one-click unsubscribe link of an email (RFC 8058) is used without a login: the signed token in its query is the proof, verified by the handler.';
        acknowledge(method, 'AwsSolutions-APIG4', reason);
        acknowledge(method, 'AwsSolutions-COG4', reason);
      }
    }

    // Errors API Gateway answers itself must carry CORS too, or a browser app sees a network error
    // instead of the 401 that tells it to refresh its token. With a list of origins the request's
    // origin is echoed: these answers hold only an error code.
    const responseHeaders = {
      'Access-Control-Allow-Origin': props.corsAllowOrigins.includes('*') ? "'*'" : 'method.request.header.Origin',
    };
    this.api.addGatewayResponse('Unauthorized', {
      responseHeaders,
      type: ResponseType.UNAUTHORIZED,
      statusCode: '401',
      templates: errorTemplate('unauthorized', quoted('missing, invalid or expired token')),
    });
    this.api.addGatewayResponse('AccessDenied', {
      responseHeaders,
      type: ResponseType.ACCESS_DENIED,
      statusCode: '403',
      templates: errorTemplate('forbidden', quoted('the token does not allow this request')),
    });
    // API Gateway answers an unknown path with 403 "Missing Authentication Token"; it is a 404.
    this.api.addGatewayResponse('UnknownRoute', {
      responseHeaders,
      type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
      statusCode: '404',
      templates: errorTemplate('not_found', quoted('no such route')),
    });
    for (const [name, type] of [
      ['BadRequestParameters', ResponseType.BAD_REQUEST_PARAMETERS],
      ['BadRequestBody', ResponseType.BAD_REQUEST_BODY],
    ] as const) {
      this.api.addGatewayResponse(name, { type, statusCode: '400', responseHeaders, templates: errorTemplate('validation_error', '"$context.error.validationErrorString"') });
    }
    this.api.addGatewayResponse('Throttled', { type: ResponseType.THROTTLED, statusCode: '429', responseHeaders, templates: errorTemplate('throttled', '$context.error.messageString') });
    this.api.addGatewayResponse('Default4xx', { type: ResponseType.DEFAULT_4XX, responseHeaders, templates: errorTemplate('request_error', '$context.error.messageString') });
    this.api.addGatewayResponse('Default5xx', { type: ResponseType.DEFAULT_5XX, responseHeaders, templates: errorTemplate('internal_error', quoted('internal error')) });

    acknowledge(
      this.api,
      'AwsSolutions-APIG3',
      'AWS WAF is an account-level cost and policy choice (web ACLs are usually shared across APIs); README explains how to associate one with the v1 stage.',
    );
    acknowledge(
      this.api,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'The API Gateway account CloudWatch role needs AmazonAPIGatewayPushToCloudWatchLogs: it writes to the execution log groups API Gateway creates per stage, which cannot be named in advance.',
    );
    if (props.auth.mode === 'jwt') {
      acknowledge(this.api, 'AwsSolutions-COG4', 'jwt auth mode: tokens of the configured identity provider are verified by the Lambda REQUEST authorizer, not a Cognito user pool.');
    }
  }

  get url(): string {
    return this.api.url;
  }
}
