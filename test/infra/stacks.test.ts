/**
 * Template assertions for the CDK app, one `describe('When ...')` per configuration. Each
 * configuration is synthesized ONCE (beforeAll) and shared by its tests.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { handlerEntries } from '../../lib/bundling.js';
import { LAMBDA_FUNCTIONS } from '../../src/lambda/functions.js';
import { CONTEXT_NAMESPACE, ConfigurationError, configFromContext } from '../../lib/config.js';
import { HandlerFunction } from '../../lib/constructs/handler-function.js';
import type { QueueWithDlq } from '../../lib/constructs/queue-with-dlq.js';
import { CELEBRITY_POSTS_INDEX_KEY_PATTERN, RETRACTIONS_KEY_PATTERN } from '../../src/core/model/keys.js';
import { restRoutes } from '../../src/contract/rest-routes.js';
import { catalog } from '../../src/notifications/index.js';
import { tableSpecs } from '../../src/table-specs.js';
import { grantsOf, logicalId, statementsOf, synthesize, tableActions, type CfnTemplate, type Synthesized } from './synth.js';

const TABLE_WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

function resourcesOfType(template: CfnTemplate, type: string): [string, NonNullable<CfnTemplate['Resources'][string]>][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

/** The methods of the routes (OPTIONS preflights excluded). */
function routeMethods(template: CfnTemplate): ReturnType<typeof resourcesOfType> {
  return resourcesOfType(template, 'AWS::ApiGateway::Method').filter(([, method]) => method.Properties!.HttpMethod !== 'OPTIONS');
}

function allFunctions(synth: Synthesized): HandlerFunction[] {
  return synth.built.app.node.findAll().filter((node): node is HandlerFunction => node instanceof HandlerFunction);
}

function functionsOf(synth: Synthesized, handler: string): HandlerFunction[] {
  return allFunctions(synth).filter((fn) => fn.handlerName === handler);
}

function one<T>(items: T[]): T {
  expect(items).toHaveLength(1);
  return items[0]!;
}

/** Queue logical ids that are some queue's, rule target's or the schedules' dead-letter target. */
function deadLetterQueueIds(synth: Synthesized): Set<string> {
  const template = synth.appJson;
  // The urgent lanes' DLQ (the built-in catalog's lanes are in this stack: found below too; listed for catalogs whose lanes are nested).
  const ids = new Set<string>([logicalId(synth.built.app.scheduling.deadLetterQueue), logicalId(synth.built.app.pipeline.urgentIntakeDeadLetterQueue)]);
  for (const [, queue] of resourcesOfType(template, 'AWS::SQS::Queue')) {
    const target = queue.Properties?.RedrivePolicy?.deadLetterTargetArn;
    if (target) ids.add(target['Fn::GetAtt'][0]);
  }
  for (const [, rule] of resourcesOfType(template, 'AWS::Events::Rule')) {
    for (const target of rule.Properties!.Targets) if (target.DeadLetterConfig) ids.add(target.DeadLetterConfig.Arn['Fn::GetAtt'][0]);
  }
  return ids;
}

function expectNoNagFindings(synth: Synthesized): void {
  const findings = synth.nagViolations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`);
  expect(findings).toEqual([]);
}

describe('When deployed with the defaults (cognito auth mode)', () => {
  let synth: Synthesized;
  let app: CfnTemplate;
  beforeAll(() => {
    synth = synthesize({}, { bundle: true });
    app = synth.appJson;
  }, 240_000);

  describe('InboxTables', () => {
    it('derives every table from table-specs: keys, TTL, PITR, KMS encryption, retained', () => {
      const tables = resourcesOfType(synth.dataJson, 'AWS::DynamoDB::GlobalTable');
      expect(tables).toHaveLength(Object.keys(tableSpecs).length);
      for (const spec of Object.values(tableSpecs)) {
        const keySchema = [{ AttributeName: spec.partitionKey.name, KeyType: 'HASH' }, ...('sortKey' in spec ? [{ AttributeName: spec.sortKey.name, KeyType: 'RANGE' }] : [])];
        const ttl = 'timeToLiveAttribute' in spec ? { AttributeName: spec.timeToLiveAttribute, Enabled: true } : Match.absent();
        synth.data.hasResource('AWS::DynamoDB::GlobalTable', {
          DeletionPolicy: 'Retain',
          Properties: Match.objectLike({
            KeySchema: keySchema,
            TimeToLiveSpecification: ttl,
            BillingMode: 'PAY_PER_REQUEST',
            SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
            Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true }, DeletionProtectionEnabled: true })],
          }),
        });
      }
    });

    it('keeps a Cognito user pool whose immutable custom:tenant the app client can read but not write', () => {
      synth.data.hasResourceProperties('AWS::Cognito::UserPool', {
        Schema: Match.arrayWith([Match.objectLike({ Name: 'tenant', Mutable: false, AttributeDataType: 'String' })]),
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      });
      const client = one(resourcesOfType(synth.dataJson, 'AWS::Cognito::UserPoolClient'))[1].Properties!;
      expect(client.ReadAttributes).toContain('custom:tenant');
      expect(client.WriteAttributes).not.toContain('custom:tenant');
      synth.data.hasOutput('UserPoolId', {});
      synth.data.hasOutput('UserPoolClientId', {});
    });
  });

  describe('NotificationPipeline', () => {
    it('keeps the built-in catalog\'s urgent lanes in the App stack (no nested stack: the deployed-mode local run and the least-privilege check read one template)', () => {
      for (const type of synth.built.app.pipeline.types.filter((candidate) => candidate.urgent)) expect(Stack.of(type.urgent!.intake), type.detailType).toBe(Stack.of(type.fanOut));
      expect(resourcesOfType(app, 'AWS::CloudFormation::Stack')).toEqual([]);
    });
    it('has the notifications bus with an archive for replay', () => {
      synth.stack.hasResourceProperties('AWS::Events::EventBus', { Name: 'notifications' });
      synth.stack.resourceCountIs('AWS::Events::Archive', 1);
    });

    it('routes each catalog type with its own rule to its own intake queue, and a type that notifies with a second rule to its urgent intake queue, each with a target DLQ', () => {
      const rules = resourcesOfType(app, 'AWS::Events::Rule');
      const notifying = catalog.filter((type) => type.audience !== 'none');
      // One per catalog type, one more per type whose events can be urgent, and the privacy job's (user.erased, user.export.requested).
      expect(rules).toHaveLength(catalog.length + notifying.length + 1);
      expect(notifying.map((type) => type.detailType)).toEqual(expect.arrayContaining(['mention.created', 'comment.created', 'post.published', 'follow.created']));
      const ruleTo = (queue: QueueWithDlq) => {
        const found = rules.filter(([, rule]) => JSON.stringify(rule.Properties!.Targets).includes(`"${logicalId(queue.queue)}"`));
        expect(found).toHaveLength(1);
        expect(found[0]![1].Properties!.Targets).toEqual([expect.objectContaining({ DeadLetterConfig: expect.objectContaining({}) })]);
        return found[0]![1];
      };
      for (const type of catalog) {
        const pipeline = synth.built.app.pipeline.types.find((candidate) => candidate.detailType === type.detailType)!;
        const standard = ruleTo(pipeline.intake).Properties!.EventPattern;
        if (type.audience === 'none') {
          expect(pipeline.urgent, type.detailType).toBeUndefined();
          expect(standard).toEqual({ 'detail-type': [type.detailType] });
          continue;
        }
        const urgent = ruleTo(pipeline.urgent!.intake).Properties!.EventPattern;
        // The lane of the default priority takes "anything but the other, or none"; the other lane exactly the other.
        if (type.defaultPriority === 'urgent') {
          expect(urgent, type.detailType).toEqual({ 'detail-type': [type.detailType], detail: { priority: [{ 'anything-but': 'info' }, { exists: false }] } });
          expect(standard, type.detailType).toEqual({ 'detail-type': [type.detailType], detail: { priority: ['info'] } });
        } else {
          expect(urgent, type.detailType).toEqual({ 'detail-type': [type.detailType], detail: { priority: ['urgent'] } });
          expect(standard, type.detailType).toEqual({ 'detail-type': [type.detailType], detail: { priority: [{ 'anything-but': 'urgent' }, { exists: false }] } });
        }
      }
    });

    it('updates a standard rule only after its urgent rule exists (a deploy never has a moment where an urgent event matches neither)', () => {
      for (const type of synth.built.app.pipeline.types.filter((candidate) => candidate.urgent)) {
        expect(app.Resources[logicalId(type.rule)]!.DependsOn, type.detailType).toEqual(expect.arrayContaining([logicalId(type.urgent!.rule)]));
      }
    });

    it('gives the urgent lanes the intake queue settings and their own dead-letter queue and alarms', () => {
      const pipeline = synth.built.app.pipeline;
      const urgentDlq = logicalId(pipeline.urgentIntakeDeadLetterQueue);
      const lanes = app;
      const alarms = resourcesOfType(app, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties!);
      for (const type of pipeline.types.filter((candidate) => candidate.urgent)) {
        const standard = app.Resources[logicalId(type.intake.queue)]!.Properties!;
        const urgent = lanes.Resources[logicalId(type.urgent!.intake.queue)]!.Properties!;
        expect(urgent.VisibilityTimeout).toBe(standard.VisibilityTimeout);
        expect(urgent.MessageRetentionPeriod).toBe(standard.MessageRetentionPeriod);
        expect(urgent.SqsManagedSseEnabled).toBe(true);
        expect(urgent.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [urgentDlq, 'Arn'] }, maxReceiveCount: 5 });
        expect(urgent.SqsManagedSseEnabled).toBe(true);
        expect(lanes.Resources).toHaveProperty([logicalId(type.urgent!.rule)]);
        // An urgent event waiting a minute is an alarm (the standard lane's threshold is 5 minutes).
        expect(alarms.some((alarm) => alarm.MetricName === 'ApproximateAgeOfOldestMessage' && JSON.stringify(alarm.Dimensions).includes(logicalId(type.urgent!.intake.queue)) && alarm.Threshold === 60)).toBe(true);
      }
      expect(alarms.some((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible' && JSON.stringify(alarm.Dimensions).includes(urgentDlq) && alarm.Threshold === 1)).toBe(true);
      expect(app.Resources[urgentDlq]!.Properties!.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    });

    it('runs one fan-out function per catalog type, fed by its intake queue with partial batch responses', () => {
      const fanOuts = functionsOf(synth, 'fanout');
      expect(fanOuts.map((fn) => synth.stack.toJSON().Resources[logicalId(fn)].Properties.Environment.Variables.NOTIFICATION_TYPE).sort()).toEqual(
        catalog.map((type) => type.detailType).sort(),
      );
      for (const type of synth.built.app.pipeline.types) {
        synth.stack.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
          EventSourceArn: { 'Fn::GetAtt': [logicalId(type.intake.queue), 'Arn'] },
          FunctionName: { Ref: logicalId(type.fanOut) },
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        });
        // The urgent lane: the same function.
        if (type.urgent) {
          synth.stack.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
            EventSourceArn: { 'Fn::GetAtt': [logicalId(type.urgent.intake.queue), 'Arn'] },
            FunctionName: { Ref: logicalId(type.fanOut) },
            FunctionResponseTypes: ['ReportBatchItemFailures'],
          });
        }
      }
    });

    it('gives every queue a DLQ (maxReceiveCount 5), SSE and a TLS-only policy', () => {
      const dlqs = deadLetterQueueIds(synth);
      const queues = resourcesOfType(app, 'AWS::SQS::Queue');
      for (const [id, queue] of queues) {
        expect(queue.Properties!.SqsManagedSseEnabled, id).toBe(true);
        if (!dlqs.has(id)) expect(queue.Properties!.RedrivePolicy, id).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [expect.any(String), 'Arn'] }, maxReceiveCount: 5 });
        synth.stack.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
          },
        });
      }
    });

    it('sets each consumed queue\'s visibility timeout to at least 6x its consumer\'s timeout', () => {
      const mappings = resourcesOfType(app, 'AWS::Lambda::EventSourceMapping');
      expect(mappings.length).toBeGreaterThan(catalog.length);
      for (const [, mapping] of mappings) {
        const queue = app.Resources[mapping.Properties!.EventSourceArn['Fn::GetAtt'][0]]!;
        const fn = app.Resources[mapping.Properties!.FunctionName.Ref]!;
        expect(queue.Properties!.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fn.Properties!.Timeout);
      }
    });

    it('consumes the urgent queue with no batching window and the info queue with the configured 30 s window', () => {
      const { urgentDelivery, infoDelivery } = synth.built.app.pipeline;
      synth.stack.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [logicalId(urgentDelivery.queue), 'Arn'] },
        MaximumBatchingWindowInSeconds: Match.absent(),
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      synth.stack.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [logicalId(infoDelivery.queue), 'Arn'] },
        MaximumBatchingWindowInSeconds: 30,
        BatchSize: 100,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });
  });

  describe('InboxApi and LiveDelivery', () => {
    it('builds every REST route behind the Cognito authorizer with request validation', () => {
      synth.stack.hasResourceProperties('AWS::ApiGateway::Authorizer', { Type: 'COGNITO_USER_POOLS' });
      synth.stack.hasResourceProperties('AWS::ApiGateway::RequestValidator', { ValidateRequestBody: true, ValidateRequestParameters: true });
      const methods = routeMethods(app);
      expect(methods).toHaveLength(restRoutes.length);
      for (const [, method] of methods) {
        expect(method.Properties).toMatchObject({ AuthorizationType: 'COGNITO_USER_POOLS', AuthorizerId: { Ref: expect.any(String) }, RequestValidatorId: { Ref: expect.any(String) } });
      }
      synth.stack.hasResourceProperties('AWS::ApiGateway::Method', { HttpMethod: 'POST', RequestParameters: { 'method.request.path.id': true } });
    });

    it('answers CORS preflights without a token and puts CORS headers on gateway errors and handler answers', () => {
      const preflights = resourcesOfType(app, 'AWS::ApiGateway::Method').filter(([, method]) => method.Properties!.HttpMethod === 'OPTIONS');
      expect(preflights.length).toBeGreaterThanOrEqual(new Set(restRoutes.map((route) => route.resource)).size);
      for (const [, preflight] of preflights) expect(preflight.Properties!.AuthorizationType).toBe('NONE');
      const unauthorized = resourcesOfType(app, 'AWS::ApiGateway::GatewayResponse').find(([, candidate]) => candidate.Properties!.ResponseType === 'UNAUTHORIZED')![1];
      expect(unauthorized.Properties!.ResponseParameters).toMatchObject({ 'gatewayresponse.header.Access-Control-Allow-Origin': "'*'" });
      for (const fn of Object.values(synth.built.app.restFunctions)) {
        expect(app.Resources[logicalId(fn)]!.Properties!.Environment.Variables).toMatchObject({ CORS_ALLOW_ORIGINS: '*' });
      }
    });

    it('answers 401/403/400 from API Gateway in the {"error":{"code","message"}} format, with access logs', () => {
      for (const [type, status, code] of [
        ['UNAUTHORIZED', '401', 'unauthorized'],
        ['ACCESS_DENIED', '403', 'forbidden'],
        ['BAD_REQUEST_PARAMETERS', '400', 'validation_error'],
        ['MISSING_AUTHENTICATION_TOKEN', '404', 'not_found'],
      ] as const) {
        const response = resourcesOfType(app, 'AWS::ApiGateway::GatewayResponse').find(([, candidate]) => candidate.Properties!.ResponseType === type)![1];
        expect(response.Properties!.StatusCode).toBe(status);
        const template = response.Properties!.ResponseTemplates['application/json'] as string;
        expect(template).toContain(`{"error":{"code":"${code}","message":`);
        if (!template.includes('$context')) expect(JSON.parse(template).error.code).toBe(code);
      }
      synth.stack.hasResourceProperties('AWS::ApiGateway::Stage', {
        AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
        MethodSettings: [Match.objectLike({ LoggingLevel: 'ERROR', DataTraceEnabled: false })],
      });
    });

    it('authorizes WebSocket $connect with the Lambda authorizer on the token query parameter', () => {
      const authorizerFn = logicalId(synth.built.app.authorizer!);
      const authorizer = one(resourcesOfType(app, 'AWS::ApiGatewayV2::Authorizer'));
      expect(authorizer[1].Properties).toMatchObject({ AuthorizerType: 'REQUEST', IdentitySource: ['route.request.querystring.token'] });
      expect(JSON.stringify(authorizer[1].Properties!.AuthorizerUri)).toContain(authorizerFn);
      synth.stack.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$connect', AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizer[0] } });
      synth.stack.hasResourceProperties('AWS::ApiGatewayV2::Stage', { AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }) });
      // In cognito mode the authorizer verifies the user pool's ID tokens.
      const env = app.Resources[authorizerFn]!.Properties!.Environment.Variables;
      expect(JSON.stringify(env.JWT_ISSUER)).toContain('https://cognito-idp.');
      expect(JSON.stringify(env.JWT_ISSUER)).toContain('IdentityUserPool');
      expect(JSON.stringify(env.JWT_AUDIENCE)).toContain('IdentityUserPoolWebClient');
      expect(JSON.stringify(env.JWKS_URL)).toContain('/.well-known/jwks.json');
    });

    it('outputs the REST URL, WebSocket URL and bus name', () => {
      for (const output of ['RestApiUrl', 'WebSocketUrl', 'EventBusName']) synth.stack.hasOutput(output, {});
    });
  });

  describe('HandlerFunction', () => {
    it('wires every function of src/lambda/functions.ts but those of optional features', () => {
      const wired = new Set(allFunctions(synth).map((fn) => fn.handlerName));
      const always = handlerEntries().filter((entry) => !('deployedWith' in LAMBDA_FUNCTIONS[entry.name]));
      expect(always.map((entry) => entry.name).filter((name) => !wired.has(name))).toEqual([]);
    });

    it('gives each function every environment variable its handler requires at cold start', async () => {
      // Importing a handler entry builds its dependencies from process.env (fail-fast config): a
      // missing variable throws here exactly as it would at a Lambda cold start.
      const placeholder = (name: string, value: unknown): string => {
        if (typeof value === 'string') return value;
        if (name.endsWith('_ENDPOINT')) return 'https://abc123.execute-api.us-east-1.amazonaws.com/live';
        if (name.endsWith('_URL')) return 'https://example.com/resource';
        if (name.endsWith('_ARN')) return 'arn:aws:sqs:us-east-1:000000000000:queue';
        return `${name.toLowerCase()}-value`;
      };
      const entries = new Map(handlerEntries().map((entry) => [entry.name, entry]));
      const variablesOf = (fn: HandlerFunction) => app.Resources[logicalId(fn)]!.Properties!.Environment.Variables as Record<string, unknown>;
      // Every variable any function gets is cleared before each import, so one function's variable
      // never hides another's missing one.
      const appVariables = new Set(allFunctions(synth).flatMap((fn) => Object.keys(variablesOf(fn))));
      const saved = { ...process.env };
      const failures: string[] = [];
      try {
        // Every function, not one per entry: each fan-out type and both delivery modes.
        for (const fn of allFunctions(synth)) {
          const entry = entries.get(fn.handlerName)!;
          process.env = Object.fromEntries(Object.entries(saved).filter(([name]) => !appVariables.has(name)));
          Object.assign(process.env, Object.fromEntries(Object.entries(variablesOf(fn)).map(([name, value]) => [name, placeholder(name, value)])));
          vi.resetModules();
          try {
            const module = (await import(entry.path)) as { handler?: unknown };
            if (typeof module.handler !== 'function') failures.push(`${fn.node.path}: no handler export`);
          } catch (error) {
            failures.push(`${fn.node.path}: ${(error as Error).message}`);
          }
        }
      } finally {
        process.env = saved;
      }
      expect(failures).toEqual([]);
    }, 120_000);

    it('runs every function on Node.js 22 / ARM64 as minified ESM with source maps, tracing and its own log group', () => {
      for (const fn of allFunctions(synth)) {
        const properties = app.Resources[logicalId(fn)]!.Properties!;
        expect(properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler', TracingConfig: { Mode: 'Active' } });
        expect(properties.LoggingConfig.LogGroup).toEqual({ Ref: expect.any(String) });
        expect(properties.Environment.Variables).toMatchObject({ POWERTOOLS_SERVICE_NAME: expect.any(String), POWERTOOLS_LOG_LEVEL: 'INFO', NODE_OPTIONS: '--enable-source-maps' });
      }
      const assets = readdirSync(synth.assemblyDir).filter((name) => name.startsWith('asset.') && existsSync(join(synth.assemblyDir, name, 'index.mjs')));
      expect(assets.length).toBe(new Set(allFunctions(synth).map((fn) => fn.handlerName)).size);
      for (const asset of assets) {
        expect(existsSync(join(synth.assemblyDir, asset, 'index.mjs.map'))).toBe(true);
        // The bundle-size target (bench/suites/bundle-size.ts); zod must be imported as `import * as z` to tree-shake.
        expect(statSync(join(synth.assemblyDir, asset, 'index.mjs')).size, `${asset}/index.mjs`).toBeLessThanOrEqual(300 * 1024);
      }
    });

    it('attaches no managed policy to function roles, and "*" resources only to X-Ray actions', () => {
      for (const fn of allFunctions(synth)) {
        expect(app.Resources[logicalId(fn.executionRole)]!.Properties!.ManagedPolicyArns).toBeUndefined();
        for (const statement of statementsOf(app, fn)) {
          const actions = [statement.Action].flat();
          if (statement.Resource === '*') expect(actions.every((action) => action.startsWith('xray:'))).toBe(true);
          expect(actions.filter((action) => action.includes('*') || action === 'dynamodb:Scan')).toEqual([]);
        }
      }
    });
  });

  describe('least privilege', () => {
    it('REST read can read the inbox, read marks and graph; its only write is the counts floor of a marks item', () => {
      const fn = synth.built.app.restFunctions.inboxRead;
      // Exact sets per function: test/infra/least-privilege.test.ts.
      // BatchGetItem of feed items only (dynamodb:LeadingKeys T#*#F#*): a page merging celebrity feeds.
      expect(tableActions(app, fn, 'Inbox')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query']);
      expect(statementsOf(app, fn).find((statement) => statement.Action === 'dynamodb:BatchGetItem' && JSON.stringify(statement.Resource).includes('TablesInbox'))?.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['T#*#F#*'] } });
      expect(tableActions(app, fn, 'ReadMarks')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
      expect(tableActions(app, fn, 'Graph')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query']);
      // Counts move the counts floor (src/core/model/counts-floor.ts): an UpdateItem of user partitions naming the key and `countsFloor` only.
      const writes = statementsOf(app, fn).filter((statement) => [statement.Action].flat().some((action) => TABLE_WRITES.includes(action as string)));
      expect(writes.map((statement) => statement.Action)).toEqual(['dynamodb:UpdateItem']);
      expect(JSON.stringify(writes[0]!.Resource)).toContain('TablesReadMarks');
      expect(writes[0]!.Condition).toEqual({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['T#*#U#*'] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'countsFloor'] },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
      });
      expect(tableActions(app, fn, 'Connections')).toEqual([]);
    });

    it('REST write moves read marks; its only inbox write is the snooze comeback: one PutItem into user partitions (no batch write, no delete)', () => {
      const fn = synth.built.app.restFunctions.inboxWrite;
      // Snooze copies one item the caller owns into the caller's own partition under an id of the
      // return time (docs/design-notes.md "How inbox state is stored"): a put, never an update or delete of existing items.
      expect(tableActions(app, fn, 'Inbox')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:Query']);
      const put = statementsOf(app, fn).find((statement) => statement.Action === 'dynamodb:PutItem' && JSON.stringify(statement.Resource).includes('TablesInbox'));
      expect(put?.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['T#*#U#*'] }, 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['T#*#F#*'] } });
      const variables = app.Resources[logicalId(fn)]!.Properties!.Environment.Variables as Record<string, unknown>;
      expect(variables.SNOOZE_QUEUE_ARN).toEqual({ 'Fn::GetAtt': [logicalId(synth.built.app.pipeline.urgentDelivery.queue), 'Arn'] });
      expect(variables.SCHEDULE_GROUP_NAME).toBeDefined();
      // The snooze key signs one-recipient comebacks only; the fan-out's delivery-job key stays out of this internet-facing function.
      expect(variables.SNOOZE_JOB_SECRET).toBeDefined();
      expect(variables.DELIVERY_JOB_SECRET).toBeUndefined();
      expect(variables.SCHEDULER_ROLE_ARN).toEqual({ 'Fn::GetAtt': [logicalId(synth.built.app.scheduling.snoozeRole), 'Arn'] });
      // Per-item state: exceptions (PutItem, BatchWriteItem of a bulk) and the marks item (UpdateItem); the actions' lookup (BatchGetItem).
      expect(tableActions(app, fn, 'ReadMarks')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
      expect(tableActions(app, fn, 'Graph').filter((action) => TABLE_WRITES.includes(action))).toEqual([]);
      // Read-state sync to the user's devices: presence lookups, 410 cleanup, PostToConnection.
      expect(tableActions(app, fn, 'Connections')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']);
      expect(grantsOf(app, fn).get('execute-api:ManageConnections')![0]).toContain('/live/POST/@connections/*');
    });

    it('fan-out writes inbox items (puts only) and late arrivals\' markers, never posts to connections nor touches the connections table', () => {
      for (const fn of functionsOf(synth, 'fanout')) {
        const grants = grantsOf(app, fn);
        expect(grants.has('execute-api:ManageConnections')).toBe(false);
        // follow.deleted notifies nobody: only its follower's trace record (BatchWriteItem on user trace partitions). Puts only (BatchWriteItem for items,
        // PutItem for a post's recent posts log entry); follow.created also reads that log (Query).
        // A notifying type may take the celebrity path: UpdateItem of the count index slots, and only those.
        const puts = ['dynamodb:BatchWriteItem', 'dynamodb:PutItem'];
        const type = catalog.find((candidate) => `FanOut${candidate.detailType.split('.').map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')}` === fn.node.id);
        const notifies = type?.audience !== 'none';
        // A retraction type writes its one record (PutItem) in the tenant's retractions partition only; a notifying
        // type's retry also probes whether its first attempt's first write landed (BatchGetItem, or a Query of the recent posts log).
        const inboxActions = fn.node.id === 'FanOutFollowDeleted' ? ['dynamodb:BatchWriteItem'] : type?.retraction ? ['dynamodb:PutItem'] : [...(notifies ? ['dynamodb:BatchGetItem'] : []), ...puts, ...(notifies || fn.node.id === 'FanOutFollowCreated' ? ['dynamodb:Query'] : []), ...(notifies ? ['dynamodb:UpdateItem'] : [])];
        expect(tableActions(app, fn, 'Inbox')).toEqual(inboxActions);
        if (type?.retraction) expect(statementsOf(app, fn).find((statement) => statement.Action === 'dynamodb:PutItem')?.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['T#*#RETRACTIONS'] } });
        if (fn.node.id === 'FanOutFollowDeleted') expect(statementsOf(app, fn).find((statement) => statement.Action === 'dynamodb:BatchWriteItem' && JSON.stringify(statement.Resource).includes('TablesInbox'))?.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['T#*#U#*#TRACE'] } });
        const inboxUpdates = statementsOf(app, fn).filter((statement) => [statement.Action].flat().includes('dynamodb:UpdateItem') && JSON.stringify(statement.Resource).includes('TablesInbox'));
        expect(inboxUpdates).toHaveLength(notifies ? 1 : 0);
        for (const statement of inboxUpdates) expect(statement.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [CELEBRITY_POSTS_INDEX_KEY_PATTERN] } });
        expect(tableActions(app, fn, 'Connections')).toEqual([]);
        // A notifying type's late own items put their markers beside the users' marks: user partitions only.
        expect(tableActions(app, fn, 'ReadMarks')).toEqual(notifies ? ['dynamodb:BatchWriteItem'] : []);
        if (notifies) expect(statementsOf(app, fn).find((statement) => statement.Action === 'dynamodb:BatchWriteItem' && JSON.stringify(statement.Resource).includes('TablesReadMarks'))?.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['T#*#U#*'] } });
      }
    });

    it('routes a retraction\'s `retracted` pushes through the urgent delivery function: its fan-out cannot post to connections', () => {
      const { pipeline } = synth.built.app;
      const live = synth.built.app.live!;
      const retractionTypes = pipeline.types.filter((type) => catalog.find((candidate) => candidate.detailType === type.detailType)?.retraction);
      expect(retractionTypes.map((type) => type.detailType)).toEqual(['notification.retracted']);
      for (const type of retractionTypes) {
        const grants = grantsOf(app, type.fanOut);
        expect(grants.has('execute-api:ManageConnections')).toBe(false);
        expect(tableActions(app, type.fanOut, 'Connections')).toEqual([]);
        const variables = app.Resources[logicalId(type.fanOut)]!.Properties!.Environment.Variables as Record<string, unknown>;
        expect(variables.WS_MANAGEMENT_ENDPOINT).toBeUndefined();
        // Its jobs go to the urgent delivery queue, which the urgent delivery function consumes.
        const sent = (grants.get('sqs:SendMessage') ?? []).map((resource) => (JSON.parse(resource) as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]);
        expect(sent).toEqual([logicalId(pipeline.urgentDelivery.queue)]);
      }
      const consumers = resourcesOfType(app, 'AWS::Lambda::EventSourceMapping').filter(([, mapping]) => JSON.stringify(mapping.Properties!.EventSourceArn).includes(logicalId(pipeline.urgentDelivery.queue)));
      expect(consumers.map(([, mapping]) => JSON.stringify(mapping.Properties!.FunctionName))).toEqual([expect.stringContaining(logicalId(live.urgentDelivery))]);
      expect(grantsOf(app, live.urgentDelivery).get('execute-api:ManageConnections')![0]).toContain('/live/POST/@connections/*');
    });

    it('gives each fan-out the URL of and sqs:SendMessage on only the queues its type sends to', () => {
      const { pipeline } = synth.built.app;
      const queueIds = { urgent: logicalId(pipeline.urgentDelivery.queue), info: logicalId(pipeline.infoDelivery.queue), promotion: logicalId(pipeline.promotion.queue.queue) };
      // Both delivery queues for a notifying type (the event may override the priority); the
      // promotion queue for a graph effect (settleTier after a follow or an unfollow).
      const expected: Record<string, (keyof typeof queueIds)[]> = {
        'mention.created': ['urgent', 'info'],
        'comment.created': ['urgent', 'info'],
        'post.published': ['urgent', 'info'],
        'follow.created': ['urgent', 'info', 'promotion'],
        'follow.deleted': ['promotion'],
      };
      const envOf = { urgent: 'URGENT_QUEUE_URL', info: 'INFO_QUEUE_URL', promotion: 'PROMOTION_QUEUE_URL' } as const;
      // The shipped types exactly; a type added by the recipe in docs/construct-library.md follows the same rule.
      const byRule = (detailType: string): (keyof typeof queueIds)[] => {
        const type = catalog.find((candidate) => candidate.detailType === detailType)!;
        // A retraction type (audience none) sends its `retracted` jobs to the urgent queue only.
        return [...(type.audience !== 'none' ? (['urgent', 'info'] as const) : type.retraction ? (['urgent'] as const) : []), ...(type.graphEffect ? (['promotion'] as const) : [])];
      };
      expect(pipeline.types.map((type) => type.detailType).filter((detailType) => detailType in expected).sort()).toEqual(Object.keys(expected).sort());
      for (const type of pipeline.types) {
        const queues = expected[type.detailType] ?? byRule(type.detailType);
        const sent = (grantsOf(app, type.fanOut).get('sqs:SendMessage') ?? []).map((resource) => (JSON.parse(resource) as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]);
        expect(sent.sort(), type.detailType).toEqual(queues.map((queue) => queueIds[queue]).sort());
        const variables = app.Resources[logicalId(type.fanOut)]!.Properties!.Environment.Variables as Record<string, unknown>;
        for (const queue of Object.keys(envOf) as (keyof typeof envOf)[]) {
          expect(variables[envOf[queue]], `${type.detailType} ${envOf[queue]}`).toEqual(queues.includes(queue) ? { Ref: queueIds[queue] } : undefined);
        }
      }
    });

    it('delivery posts only to POST @connections of its own WebSocket stage, reads inbox items by id and the tenants\' retraction lists, and writes only trace partitions of the Inbox table', () => {
      const live = synth.built.app.live!;
      for (const fn of [live.urgentDelivery, live.infoDelivery]) {
        const grants = grantsOf(app, fn);
        const manage = grants.get('execute-api:ManageConnections')!;
        expect(manage).toHaveLength(1);
        expect(manage[0]).toContain(logicalId(live.api));
        expect(manage[0]).toContain('/live/POST/@connections/*');
        // A released hold's items read back by id (BatchGetItem); trace records only under T#*#U#*#TRACE (LeadingKeys);
        // a snooze comeback of a retracted event is not pushed: Query of the retraction partitions only.
        expect(tableActions(app, fn, 'Inbox')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query']);
        const inboxWrites = statementsOf(app, fn).filter((statement) => JSON.stringify(statement.Action).includes('BatchWriteItem') && JSON.stringify(statement.Resource).includes('TablesInbox'));
        expect(inboxWrites.map((statement) => statement.Condition)).toEqual([{ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['T#*#U#*#TRACE'] } }]);
        const inboxQueries = statementsOf(app, fn).filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:Query') && JSON.stringify(statement.Resource).includes('TablesInbox'));
        for (const statement of inboxQueries) expect(statement.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [RETRACTIONS_KEY_PATTERN] } });
        expect(tableActions(app, fn, 'Graph')).toEqual(['dynamodb:BatchGetItem']);
        expect(tableActions(app, fn, 'Idempotency')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
        expect(tableActions(app, fn, 'Connections')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
      }
    });

    it('gives each WebSocket route only what it uses', () => {
      const live = synth.built.app.live!;
      expect(tableActions(app, live.connect, 'Graph')).toEqual(['dynamodb:Query']);
      expect(tableActions(app, live.connect, 'Connections')).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:UpdateItem']);
      expect(tableActions(app, live.disconnect, 'Graph')).toEqual([]);
      expect([...grantsOf(app, live.defaultRoute).keys()].filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
    });

    it('lets only the delivery consumers, $default and the read-state sync of REST write post to connections', () => {
      const posting = allFunctions(synth).filter((fn) => grantsOf(app, fn).has('execute-api:ManageConnections')).map((fn) => fn.node.id).sort();
      expect(posting).toEqual(['Default', 'InboxWrite', 'InfoDelivery', 'PrivacyJob', 'UrgentDelivery']);
      // The privacy job only closes connections (DELETE), never posts to them.
      const privacyJob = synth.built.app.privacyJobs.worker;
      expect(grantsOf(app, privacyJob).get('execute-api:ManageConnections')!.map((resource) => resource.includes('/DELETE/@connections/*'))).toEqual([true]);
    });

    it('routes user.erased and user.export.requested to the privacy job queue (with a target DLQ), consumed one job at a time', () => {
      const { privacyJobs } = synth.built.app;
      synth.stack.hasResourceProperties('AWS::Events::Rule', {
        EventPattern: { 'detail-type': ['user.erased', 'user.export.requested'] },
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(privacyJobs.queue.queue), 'Arn'] }, DeadLetterConfig: Match.objectLike({}) })],
      });
      synth.stack.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionName: { Ref: logicalId(privacyJobs.worker) }, BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    });

    it('writes exports to a private, TLS-only, SSE-KMS bucket that expires them, and lets the privacy job list, put and delete only under exports/', () => {
      const { privacyJobs } = synth.built.app;
      const bucket = app.Resources[logicalId(privacyJobs.bucket)]!.Properties!;
      expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('aws:kms');
      expect(bucket.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
      expect(bucket.LifecycleConfiguration.Rules).toEqual([expect.objectContaining({ ExpirationInDays: 7, Status: 'Enabled' })]);
      synth.stack.hasResourceProperties('AWS::S3::BucketPolicy', { PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) } });
      const grants = grantsOf(app, privacyJobs.worker);
      for (const action of ['s3:PutObject', 's3:DeleteObject']) expect(grants.get(action)!.every((resource) => resource.includes('/exports/*'))).toBe(true);
      expect([...grants.keys()].filter((action) => action.startsWith('s3:')).sort()).toEqual(['s3:DeleteObject', 's3:ListBucket', 's3:PutObject']);
    });
  });

  describe('Scheduling', () => {
    it('has a schedule group and a role only Scheduler (this account) assumes, sending only to intake, urgent and its DLQ', () => {
      synth.stack.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
      const scheduling = synth.built.app.scheduling;
      const role = app.Resources[logicalId(scheduling.role)]!.Properties!;
      expect(role.AssumeRolePolicyDocument.Statement).toEqual([
        expect.objectContaining({ Principal: { Service: 'scheduler.amazonaws.com' }, Condition: expect.objectContaining({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }) }),
      ]);
      const pipeline = synth.built.app.pipeline;
      const expected = [...pipeline.types.map((type) => type.intake.queue), pipeline.urgentDelivery.queue, scheduling.deadLetterQueue].map((queue) => logicalId(queue)).sort();
      const statements = resourcesOfType(app, 'AWS::IAM::Policy')
        .filter(([, policy]) => JSON.stringify(policy.Properties!.Roles).includes(logicalId(scheduling.role)))
        .flatMap(([, policy]) => policy.Properties!.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
      expect(new Set(statements.flatMap((statement) => [statement.Action].flat()))).toEqual(new Set(['sqs:SendMessage']));
      const targets = statements.flatMap((statement) => [statement.Resource].flat()).map((resource) => (resource as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!);
      expect(targets.sort()).toEqual(expected);
    });

    it('lets fan-out and delivery create schedules and pass only the scheduler role, REST write only snooze-* schedules with only the snooze role, and nothing else schedule', () => {
      const scheduling = synth.built.app.scheduling;
      const schedulingFunctions = allFunctions(synth).filter((fn) => grantsOf(app, fn).has('scheduler:CreateSchedule'));
      // REST write schedules a snoozed item's comeback push (an urgent job signed with the snooze key at the return time).
      expect(new Set(schedulingFunctions.map((fn) => fn.handlerName))).toEqual(new Set(['fanout', 'delivery', 'rest-write']));
      for (const fn of schedulingFunctions) {
        const role = fn.handlerName === 'rest-write' ? scheduling.snoozeRole : scheduling.role;
        const passRole = statementsOf(app, fn).filter((statement) => [statement.Action].flat().includes('iam:PassRole'));
        expect(passRole).toEqual([
          expect.objectContaining({ Resource: { 'Fn::GetAtt': [logicalId(role), 'Arn'] }, Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } }),
        ]);
        const schedules = JSON.stringify(grantsOf(app, fn).get('scheduler:CreateSchedule'));
        expect(schedules.endsWith(fn.handlerName === 'rest-write' ? '/snooze-*\\"]]}"]' : '/*\\"]]}"]'), schedules).toBe(true);
      }
    });
  });

  describe('Operations', () => {
    it('alarms on every DLQ depth, every queue\'s oldest message, and every function\'s errors and throttles', () => {
      // A metric-math alarm (a function's errors + throttles) watches each of its metrics as a MetricStat.
      const alarms = resourcesOfType(app, 'AWS::CloudWatch::Alarm').flatMap(([, alarm]) => [
        alarm.Properties!,
        ...((alarm.Properties!.Metrics ?? []) as { MetricStat?: { Metric: Record<string, unknown> } }[]).flatMap((metric) => (metric.MetricStat ? [metric.MetricStat.Metric] : [])),
      ]);
      const dimensionOf = (alarm: Record<string, unknown>) => JSON.stringify(alarm.Dimensions);
      const dlqs = deadLetterQueueIds(synth);
      for (const [id] of resourcesOfType(app, 'AWS::SQS::Queue')) {
        const metric = dlqs.has(id) ? 'ApproximateNumberOfMessagesVisible' : 'ApproximateAgeOfOldestMessage';
        expect(alarms.some((alarm) => alarm.MetricName === metric && dimensionOf(alarm).includes(id)), `${metric} alarm for ${id}`).toBe(true);
      }
      for (const fn of allFunctions(synth)) {
        for (const metric of ['Errors', 'Throttles']) {
          expect(alarms.some((alarm) => alarm.MetricName === metric && dimensionOf(alarm).includes(logicalId(fn))), `${metric} alarm for ${fn.node.path}`).toBe(true);
        }
      }
      synth.stack.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    });
  });

  it('passes cdk-nag AwsSolutions with no unacknowledged error or warning', () => {
    expectNoNagFindings(synth);
  });
});

describe('When deployed in jwt auth mode with overridden settings', () => {
  const jwt = { jwtIssuer: 'https://id.example.com/', jwtAudience: 'notifications-api', jwksUrl: 'https://id.example.com/.well-known/jwks.json' };
  let synth: Synthesized;
  let app: CfnTemplate;
  beforeAll(() => {
    synth = synthesize(
      { authMode: 'jwt', ...jwt, infoBatchWindowSeconds: '0', maxReceiveCount: '3', removalPolicy: 'destroy', celebrityThreshold: '500', feedShards: '8', ttlDays: '30' },
      { bundle: false },
    );
    app = synth.appJson;
  }, 120_000);

  it('creates no user pool and authorizes REST with the Lambda REQUEST authorizer on the Authorization header', () => {
    synth.data.resourceCountIs('AWS::Cognito::UserPool', 0);
    expect(Object.keys(synth.dataJson.Outputs ?? {}).filter((name) => name.startsWith('UserPool'))).toEqual([]);
    const authorizerFn = logicalId(synth.built.app.authorizer!);
    const authorizer = one(resourcesOfType(app, 'AWS::ApiGateway::Authorizer'))[1].Properties!;
    expect(authorizer).toMatchObject({ Type: 'REQUEST', IdentitySource: 'method.request.header.Authorization' });
    expect(JSON.stringify(authorizer.AuthorizerUri)).toContain(authorizerFn);
    for (const [, method] of routeMethods(app)) expect(method.Properties!.AuthorizationType).toBe('CUSTOM');
    expect(app.Resources[authorizerFn]!.Properties!.Environment.Variables).toMatchObject({ JWT_ISSUER: jwt.jwtIssuer, JWT_AUDIENCE: jwt.jwtAudience, JWKS_URL: jwt.jwksUrl, TENANT_CLAIM: 'custom:tenant' });
  });

  it('applies the settings: no info batching window, maxReceiveCount 3, tables destroyed with the stack, fan-out env', () => {
    synth.stack.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(synth.built.app.pipeline.infoDelivery.queue), 'Arn'] },
      MaximumBatchingWindowInSeconds: Match.absent(),
      BatchSize: 10,
    });
    const dlqs = deadLetterQueueIds(synth);
    for (const [id, queue] of resourcesOfType(app, 'AWS::SQS::Queue')) if (!dlqs.has(id)) expect(queue.Properties!.RedrivePolicy.maxReceiveCount).toBe(3);
    for (const [, table] of resourcesOfType(synth.dataJson, 'AWS::DynamoDB::GlobalTable')) {
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties!.Replicas[0].DeletionProtectionEnabled).toBe(false);
    }
    for (const fn of functionsOf(synth, 'fanout')) {
      expect(app.Resources[logicalId(fn)]!.Properties!.Environment.Variables).toMatchObject({ CELEBRITY_THRESHOLD: '500', FEED_SHARDS: '8', INBOX_TTL_DAYS: '30' });
    }
  });

  it('passes cdk-nag AwsSolutions with no unacknowledged error or warning', () => {
    expectNoNagFindings(synth);
  });
});

describe('When deployed for LocalStack (jwt auth, liveDelivery=false)', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize(
      { authMode: 'jwt', jwtIssuer: 'urn:serverless-notifications:local', jwtAudience: 'notifications', jwksUrl: 'http://host.docker.internal:4599/jwks.json', liveDelivery: 'false', removalPolicy: 'destroy' },
      { bundle: false },
    );
  }, 120_000);

  it('leaves out the WebSocket API and its consumers but keeps the delivery queues, REST and the pipeline', () => {
    expect(resourcesOfType(synth.appJson, 'AWS::ApiGatewayV2::Api')).toEqual([]);
    expect(functionsOf(synth, 'delivery')).toEqual([]);
    expect(functionsOf(synth, 'fanout')).toHaveLength(catalog.length);
    synth.stack.hasOutput('RestApiUrl', {});
    expect(Object.keys(synth.appJson.Outputs ?? {})).not.toContain('WebSocketUrl');
    expect(synth.built.app.pipeline.urgentDelivery.queue).toBeDefined();
  });

  it('passes cdk-nag AwsSolutions with no unacknowledged error or warning', () => {
    expectNoNagFindings(synth);
  });
});

describe('When settings are invalid', () => {
  const context = (values: Record<string, unknown>) => ({ tryGetContext: (key: string) => values[key.slice(CONTEXT_NAMESPACE.length)] });

  it('refuses jwt mode without issuer, audience and JWKS URL', () => {
    expect(() => configFromContext(context({ authMode: 'jwt' }))).toThrow(/jwtIssuer is required/);
  });

  it('names the bad setting', () => {
    expect(() => configFromContext(context({ infoBatchWindowSeconds: 301 }))).toThrow(ConfigurationError);
    expect(() => configFromContext(context({ maxReceiveCount: 'five' }))).toThrow(/maxReceiveCount/);
    expect(() => configFromContext(context({ removalPolicy: 'snapshot' }))).toThrow(/removalPolicy must be one of retain, destroy/);
    expect(() => configFromContext(context({ logRetentionDays: 2 }))).toThrow(/logRetentionDays/);
  });

  it('applies the documented defaults', () => {
    expect(configFromContext(context({}))).toMatchObject({ authMode: 'cognito', celebrityThreshold: 10_000, feedShards: 4, infoBatchWindowSeconds: 30, ttlDays: 90, maxReceiveCount: 5 });
  });
});
