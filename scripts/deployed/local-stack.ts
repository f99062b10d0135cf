/**
 * The deployment the local runtime stands in for: the construct library (`NotificationInbox`) in
 * one stack of the local account and region, in `jwt` mode with the local issuer, live delivery,
 * and both channels with the local SNS platform applications and SES identity, so every function the
 * local runtime runs exists in the template with the policies and environment `cdk deploy` would
 * give it. With `bundle`, the esbuild bundles are written to `outdir` (cdk.out) as for a deploy.
 * Beside it: the map of each template resource to the local resource it stands for (`resourceMap`).
 */
import { LOCAL_SMS_ORIGINATION_IDENTITY } from '../../src/local/sms/sms-voice-v2.js';
import { readFileSync } from 'node:fs';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import { NotificationInbox } from '../../lib/index.js';
import { HandlerFunction } from '../../lib/constructs/handler-function.js';
import { LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { LOCAL_EMAIL_FROM, LOCAL_PLATFORM_APPLICATIONS } from '../../src/local/function-configs.js';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '../../src/local/signing-key.js';
import { LOCAL_ACCOUNT_ID } from '../../src/local/sqs/local-account.js';
import { principalOf } from '../../src/local/aws-calls/call-recorder.js';
import type { LocalDeploymentMap, LocalResource } from '../../src/local/deployed/local-deployment.js';
import { catalog } from '../../src/notifications/index.js';
import { intakeQueueName } from '../../src/notifications/intake-lanes.js';
import { TABLE_NAMES } from '../../src/table-specs.js';
import { ENV } from '../../src/env.js';

export const LOCAL_STACK_NAME = 'NotificationsLocal';
/** The SES identity of the local From address (`notifications@example.test`). */
export const LOCAL_SES_IDENTITY = `arn:aws:ses:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:identity/example.test`;
export const LOCAL_SES_CONFIGURATION_SET = 'local';
/** The template's JWKS URL; the deployed-bundles runtime points the authorizer at its own. */
export const LOCAL_JWKS_URL_PLACEHOLDER = 'http://127.0.0.1/.well-known/jwks.json';

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> };

/** As much of a synthesized template as the map reads. */
export interface SynthesizedTemplate {
  Resources: Record<string, { Type: string; Properties?: { Environment?: { Variables?: Record<string, unknown> } } & Record<string, unknown> }>;
}

/** Synthesizes the stack: its template and the assembly directory (with the bundles when built with `bundle`). */
export function synthesizeLocalStack(built: LocalStack): { template: SynthesizedTemplate; directory: string } {
  const assembly = built.app.synth();
  return { template: assembly.getStackByName(LOCAL_STACK_NAME).template as SynthesizedTemplate, directory: assembly.directory };
}

export interface LocalStack {
  app: App;
  stack: Stack;
  inbox: NotificationInbox;
}

/** Builds (not yet synthesizes) the local stack; without `bundle` the functions' code is not bundled (the CDK's own switch). */
export function buildLocalStack(options: { bundle: boolean; outdir?: string; audit?: boolean }): LocalStack {
  const app = new App({
    ...(options.outdir ? { outdir: options.outdir } : {}),
    context: { ...cdkJson.context, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
  });
  const stack = new Stack(app, LOCAL_STACK_NAME, { env: { account: LOCAL_ACCOUNT_ID, region: LOCAL_REGION } });
  const inbox = new NotificationInbox(stack, 'Notifications', {
    // The local runtime always keeps an audit trail (a file archive): the least-privilege check needs
    // the audit grants; the deployed-bundles run leaves it out (its bundles would write to Firehose).
    ...(options.audit ? { settings: { auditRetentionDays: 1 } } : {}),
    auth: { mode: 'jwt', issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, jwksUrl: LOCAL_JWKS_URL_PLACEHOLDER },
    channels: {
      push: { platformApplicationArns: { ...LOCAL_PLATFORM_APPLICATIONS } },
      email: { identityArn: LOCAL_SES_IDENTITY, fromAddress: LOCAL_EMAIL_FROM, configurationSetName: LOCAL_SES_CONFIGURATION_SET },
      // Self-managed opt-outs: the inbound function's grants then cover both modes the local runtime runs (SMS_SELF_MANAGED_OPT_OUTS).
      sms: { originationIdentityArn: LOCAL_SMS_ORIGINATION_IDENTITY, configurationSetName: 'local', selfManagedOptOuts: true },
    },
  });
  return { app, stack, inbox };
}

const logicalIdOf = (construct: IConstruct): string => {
  const element = construct instanceof CfnElement ? construct : (construct.node.defaultChild as CfnElement);
  return Stack.of(element).getLogicalId(element);
};

/** The recording principal of a template function: its name and the variant its environment selects. */
function principalOfFunction(fn: HandlerFunction, variables: Record<string, unknown>): string {
  const variant = { fanout: ENV.NOTIFICATION_TYPE, delivery: ENV.DELIVERY_MODE, channel: ENV.CHANNEL }[fn.handlerName as 'fanout'];
  return principalOf(fn.handlerName, variant ? String(variables[variant]) : undefined);
}

/** Every template resource a local resource stands in for, and every function by recording principal. */
export function resourceMap(built: LocalStack, template: SynthesizedTemplate, assetDirOf: (logicalId: string) => string | undefined = () => undefined): LocalDeploymentMap {
  const { inbox } = built;
  const resources: Record<string, LocalResource> = {};
  const add = (construct: IConstruct | undefined, resource: LocalResource) => {
    if (construct) resources[logicalIdOf(construct)] = resource;
  };
  for (const table of TABLE_NAMES) add(inbox.tables.tables[table].table, { kind: 'table', table });
  const queues: [IConstruct, string][] = [
    [inbox.pipeline.urgentDelivery.queue, 'UrgentDelivery'],
    [inbox.pipeline.infoDelivery.queue, 'InfoDelivery'],
    [inbox.pipeline.promotion.queue.queue, 'Promotion'],
    ...inbox.pipeline.types.map((type): [IConstruct, string] => [type.intake.queue, intakeQueueName(type.detailType, 'standard')]),
    ...inbox.pipeline.types.flatMap((type): [IConstruct, string][] => (type.urgent ? [[type.urgent.intake.queue, intakeQueueName(type.detailType, 'urgent')]] : [])),
    ...(inbox.channels?.push ? [[inbox.channels.push.queue.queue, 'PushDelivery'] as [IConstruct, string]] : []),
    ...(inbox.channels?.push?.alertsQueue ? [[inbox.channels.push.alertsQueue.queue, 'PostAlerts'] as [IConstruct, string]] : []),
    ...(inbox.channels?.email ? [[inbox.channels.email.queue.queue, 'EmailDelivery'] as [IConstruct, string]] : []),
    ...(inbox.channels?.sms ? [[inbox.channels.sms.queue.queue, 'SmsDelivery'] as [IConstruct, string]] : []),
    ...(inbox.audit ? [[inbox.audit.backlog.queue, 'AuditBacklog'] as [IConstruct, string]] : []),
    [inbox.privacyJobs.queue.queue, 'PrivacyJobs'],
  ];
  for (const [queue, name] of queues) add(queue, { kind: 'queue', queue: name });
  add(inbox.pipeline.intakeDeadLetterQueue, { kind: 'deadLetterQueue', of: 'intake' });
  add(inbox.pipeline.urgentIntakeDeadLetterQueue, { kind: 'deadLetterQueue', of: 'urgent-intake' });
  add(inbox.pipeline.ruleDeadLetterQueue, { kind: 'deadLetterQueue', of: 'rules' });
  add(inbox.scheduling.deadLetterQueue, { kind: 'deadLetterQueue', of: 'scheduler' });
  add(inbox.scheduling.role, { kind: 'schedulerRole', role: 'target' });
  add(inbox.scheduling.snoozeRole, { kind: 'schedulerRole', role: 'snooze' });
  add(inbox.scheduling.group, { kind: 'scheduleGroup' });
  add(inbox.live?.api, { kind: 'webSocketApi' });
  add(inbox.live?.stage, { kind: 'webSocketStage' });
  add(inbox.cursorSecret, { kind: 'secret', secret: 'cursor' });
  for (const secret of inbox.node.findAll().filter((node): node is Secret => node instanceof Secret)) {
    const kind = ({ DeliveryJobSecret: 'deliveryJob', SnoozeJobSecret: 'snoozeJob', UnsubscribeSecret: 'unsubscribe' } as const)[secret.node.id as 'DeliveryJobSecret'];
    if (kind) add(secret, { kind: 'secret', secret: kind });
  }
  const functions: LocalDeploymentMap['functions'] = {};
  for (const fn of inbox.node.findAll().filter((node): node is HandlerFunction => node instanceof HandlerFunction)) {
    const logicalId = logicalIdOf(fn);
    const principal = principalOfFunction(fn, template.Resources[logicalId]?.Properties?.Environment?.Variables ?? {});
    const assetDir = assetDirOf(logicalId);
    functions[principal] = { handler: fn.handlerName, logicalId, roleLogicalId: logicalIdOf(fn.executionRole), ...(assetDir ? { assetDir } : {}) };
    if (fn.logGroup) add(fn.logGroup, { kind: 'logGroup', of: principal });
  }
  const expected = ['authorizer', 'rest-read', 'rest-write', 'rest-preferences', 'celebrity-promotion', 'ws-connect', 'ws-disconnect', 'ws-default', 'delivery:urgent', 'delivery:info', 'channel:push', 'channel:email', 'channel:sms', 'sms-inbound', 'privacy-job', ...(inbox.audit ? ['audit-drain'] : []), ...catalog.map((type) => principalOf('fanout', type.detailType))];
  const missing = expected.filter((principal) => !functions[principal]);
  if (missing.length > 0) throw new Error(`the local stack has no function for ${missing.join(', ')}`);
  return {
    stackName: LOCAL_STACK_NAME,
    templateFile: `${LOCAL_STACK_NAME}.template.json`,
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    functions,
    schedulerRoles: { target: logicalIdOf(inbox.scheduling.role), snooze: logicalIdOf(inbox.scheduling.snoozeRole) },
    resources,
  };
}
