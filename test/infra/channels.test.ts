/**
 * The channels (issue 17) in the construct (off until configured: the other infra suites build none): one queue + DLQ and one
 * consumer per channel, least privilege (sns:Publish on the platform applications' endpoints only,
 * ses:SendEmail on the identity and configuration set only), the unsubscribe route without a token,
 * and no cdk-nag finding.
 */
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { NotificationInbox, type SmsChannelProps } from '../../lib/index.js';
import { logicalId, grantsOf, statementsOf, type CfnTemplate } from './synth.js';
import { catalog as alertsCatalog } from '../e2e/fixtures/alerts-catalog.js';

const ALERTS_ENTRY = join(import.meta.dirname, '..', 'e2e', 'fixtures', 'alerts-catalog.ts');

const APNS = 'arn:aws:sns:eu-west-1:111122223333:app/APNS/acme-ios';
const FCM = 'arn:aws:sns:eu-west-1:111122223333:app/GCM/acme-android';
const IDENTITY = 'arn:aws:ses:eu-west-1:111122223333:identity/acme.example';
const PHONE = 'arn:aws:sms-voice:eu-west-1:111122223333:phone-number/phone-0123';

function build(withChannels: boolean) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
  const inbox = new NotificationInbox(stack, 'Notifications', {
    auth: { mode: 'jwt', issuer: 'https://id.example.com/', audience: 'host', jwksUrl: 'https://id.example.com/jwks.json' },
    ...(withChannels
      ? { channels: { push: { platformApplicationArns: { apns: APNS, fcm: FCM } }, email: { identityArn: IDENTITY, fromAddress: 'Acme <notify@acme.example>', configurationSetName: 'notifications' }, sms: { originationIdentityArn: PHONE, configurationSetName: 'texts', dailyLimitPerUser: 3 } } }
      : {}),
  });
  const template = Template.fromStack(stack);
  return { app, stack, inbox, template, json: template.toJSON() as CfnTemplate };
}

describe('When the SMS number has self-managed opt-outs', () => {
  const smsBuild = (sms: Partial<SmsChannelProps>) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
    const inbox = new NotificationInbox(stack, 'Notifications', {
      auth: { mode: 'jwt', issuer: 'https://id.example.com/', audience: 'host', jwksUrl: 'https://id.example.com/jwks.json' },
      channels: { sms: { originationIdentityArn: PHONE, configurationSetName: 'texts', ...sms } },
    });
    return { inbox, json: Template.fromStack(stack).toJSON() as CfnTemplate };
  };

  it('the inbound function answers HELP / STOP / START from the origination identity, one record per number, keyword and day, counted in the day\'s total; on the named opt-out list', () => {
    const { inbox, json } = smsBuild({ selfManagedOptOuts: true, optOutListName: 'notify-optouts', dailyLimit: 500, answers: { help: 'Acme alerts. Help: acme.example/help. Reply STOP to stop.' } });
    const sms = inbox.channels!.sms!;
    const grants = grantsOf(json, sms.inbound);
    expect(grants.get('sms-voice:SendTextMessage')!.map((resource) => JSON.parse(resource) as unknown).sort()).toEqual([PHONE, 'arn:aws:sms-voice:eu-west-1:111122223333:configuration-set/texts'].sort());
    expect(grants.get('sms-voice:DeleteOptedOutNumber')).toEqual([JSON.stringify('arn:aws:sms-voice:eu-west-1:111122223333:opt-out-list/notify-optouts')]);
    const keysOf = (action: string) => statementsOf(json, sms.inbound).filter((statement) => ([] as unknown[]).concat(statement.Action).includes(action)).map((statement) => (statement.Condition as Record<string, Record<string, string[]>>)['ForAllValues:StringLike']!['dynamodb:LeadingKeys']);
    expect(keysOf('dynamodb:PutItem').flat().sort()).toEqual(['SMS#ANSWER#*', 'SMS#OPTOUT#*']);
    expect(keysOf('dynamodb:DeleteItem')).toEqual([['SMS#ANSWER#*']]);
    expect(keysOf('dynamodb:UpdateItem')).toEqual([['SMS#SPEND#*']]);
    const env = json.Resources[logicalId(sms.inbound)]!.Properties!.Environment.Variables as Record<string, unknown>;
    expect(env).toMatchObject({ SMS_SELF_MANAGED_OPT_OUTS: 'true', SMS_ORIGINATION_IDENTITY: PHONE, SMS_CONFIGURATION_SET: 'texts', SMS_DAILY_LIMIT: '500', SMS_OPT_OUT_LIST: 'notify-optouts', SMS_ANSWER_HELP: 'Acme alerts. Help: acme.example/help. Reply STOP to stop.' });
    expect(env.SMS_ANSWER_STOP).toBeUndefined();
  });

  it('refuses at synth: a limit that is not a whole number >= 0, an answer over 320 characters or empty, answers without self-managed opt-outs, an odd list name', () => {
    expect(() => smsBuild({ dailyLimitPerUser: -1 })).toThrow(/dailyLimitPerUser must be a whole number/);
    expect(() => smsBuild({ dailyLimit: 2.5 })).toThrow(/dailyLimit must be a whole number/);
    expect(() => smsBuild({ selfManagedOptOuts: true, answers: { help: 'x'.repeat(321) } })).toThrow(/answers.help must be 1..320/);
    expect(() => smsBuild({ selfManagedOptOuts: true, answers: { stop: '' } })).toThrow(/answers.stop must be 1..320/);
    expect(() => smsBuild({ answers: { help: 'Acme' } })).toThrow(/selfManagedOptOuts only/);
    expect(() => smsBuild({ optOutListName: 'a/b' })).toThrow(/optOutListName/);
  });
});

describe('When FCM has K = 4 platform applications', () => {
  it('the push consumer publishes to the endpoints of all four, the preferences function creates endpoints under all four; one comma-separated variable', () => {
    const fcm = [0, 1, 2, 3].map((n) => `arn:aws:sns:eu-west-1:111122223333:app/GCM/acme-android-${n}`);
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
    const inbox = new NotificationInbox(stack, 'Notifications', {
      auth: { mode: 'jwt', issuer: 'https://id.example.com/', audience: 'host', jwksUrl: 'https://id.example.com/jwks.json' },
      channels: { push: { platformApplicationArns: { apns: APNS, fcm } } },
    });
    const json = Template.fromStack(stack).toJSON() as CfnTemplate;
    const push = grantsOf(json, inbox.channels!.push!.consumer);
    expect(push.get('sns:Publish')!.map((resource) => JSON.parse(resource) as unknown).sort()).toEqual(['arn:aws:sns:eu-west-1:111122223333:endpoint/APNS/acme-ios/*', ...fcm.map((arn) => `${arn.replace(':app/', ':endpoint/')}/*`)].sort());
    // Endpoint management has no resource-level permissions in SNS ('*'), whatever K is.
    expect(grantsOf(json, inbox.restFunctions.preferences).get('sns:CreatePlatformEndpoint')).toEqual([JSON.stringify('*')]);
    const env = json.Resources[logicalId(inbox.channels!.push!.consumer)]!.Properties!.Environment.Variables as Record<string, unknown>;
    expect(env.SNS_PLATFORM_APPLICATION_FCM).toBe(fcm.join(','));
  });
});

describe('When a catalog type is at-least-once (security.alert, email)', () => {
  it('the email consumer may read a send claim back: the GetItem every consumer holds on the idempotency table (its rate counters), nothing more', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
    const inbox = new NotificationInbox(stack, 'Notifications', {
      auth: { mode: 'jwt', issuer: 'https://id.example.com/', audience: 'host', jwksUrl: 'https://id.example.com/jwks.json' },
      catalog: alertsCatalog,
      catalogEntry: ALERTS_ENTRY,
      channels: { push: { platformApplicationArns: { apns: APNS } }, email: { identityArn: IDENTITY, fromAddress: 'Acme <notify@acme.example>' } },
    });
    const json = Template.fromStack(stack).toJSON() as CfnTemplate;
    const idempotency = JSON.stringify({ 'Fn::GetAtt': [logicalId(inbox.tables.tables.idempotency.table), 'Arn'] });
    expect(grantsOf(json, inbox.channels!.email!.consumer).get('dynamodb:GetItem')).toEqual([idempotency]);
    expect(grantsOf(json, inbox.channels!.push!.consumer).get('dynamodb:GetItem')).toEqual([idempotency]);
  });
});

describe('When push and email are configured', () => {
  const built = build(true);
  const { inbox, template, json } = built;

  it('has a queue + DLQ and a consumer per channel, fan-out of offering types enqueueing', () => {
    expect(inbox.channels?.push?.consumer.handlerName).toBe('channel');
    expect(inbox.channels?.email?.consumer.handlerName).toBe('channel');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { EventSourceArn: { 'Fn::GetAtt': [logicalId(inbox.channels!.email!.queue.queue), 'Arn'] }, MaximumBatchingWindowInSeconds: 60, BatchSize: 100, ScalingConfig: { MaximumConcurrency: 2 } });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { EventSourceArn: { 'Fn::GetAtt': [logicalId(inbox.channels!.push!.queue.queue), 'Arn'] }, BatchSize: 10, ScalingConfig: { MaximumConcurrency: 5 } });
    const mention = inbox.pipeline.types.find((type) => type.detailType === 'mention.created')!.fanOut;
    const comment = inbox.pipeline.types.find((type) => type.detailType === 'comment.created')!.fanOut;
    expect(Object.keys(json.Resources[logicalId(mention)]!.Properties!.Environment.Variables)).toContain('PUSH_QUEUE_URL');
    expect(Object.keys(json.Resources[logicalId(comment)]!.Properties!.Environment.Variables)).toContain('EMAIL_QUEUE_URL');
  });

  it('grants sns:Publish on the platform applications endpoints only and ses:SendEmail on the identity only', () => {
    const push = grantsOf(json, inbox.channels!.push!.consumer);
    expect(push.get('sns:Publish')!.map((resource) => JSON.parse(resource) as unknown).sort()).toEqual(['arn:aws:sns:eu-west-1:111122223333:endpoint/APNS/acme-ios/*', 'arn:aws:sns:eu-west-1:111122223333:endpoint/GCM/acme-android/*']);
    expect([...push.keys()].filter((action) => action.startsWith('ses:'))).toEqual([]);
    const email = grantsOf(json, inbox.channels!.email!.consumer);
    expect(email.get('ses:SendEmail')!.map((resource) => JSON.parse(resource) as unknown).sort()).toEqual(['arn:aws:ses:eu-west-1:111122223333:configuration-set/notifications', IDENTITY]);
    expect([...email.keys()].filter((action) => action.startsWith('sns:'))).toEqual([]);
    const preferences = grantsOf(json, inbox.restFunctions.preferences);
    // SNS has no resource-level permissions for the endpoint management actions: IAM authorizes them on "*" only.
    for (const action of ['sns:CreatePlatformEndpoint', 'sns:GetEndpointAttributes', 'sns:SetEndpointAttributes', 'sns:DeleteEndpoint']) expect(preferences.get(action)!.map((resource) => JSON.parse(resource) as unknown)).toEqual(['*']);
    expect(push.get('sns:DeleteEndpoint')!.map((resource) => JSON.parse(resource) as unknown)).toEqual(['*']);
    expect(preferences.has('sns:Publish')).toBe(false);
    // The privacy job deletes an erased user's device endpoints: DeleteEndpoint on those endpoints only.
    const privacyJob = grantsOf(json, inbox.privacyJobs.worker);
    expect(privacyJob.get('sns:DeleteEndpoint')!.map((resource) => JSON.parse(resource) as unknown).sort()).toEqual(['arn:aws:sns:eu-west-1:111122223333:endpoint/APNS/acme-ios/*', 'arn:aws:sns:eu-west-1:111122223333:endpoint/GCM/acme-android/*']);
    expect([...privacyJob.keys()].filter((action) => action.startsWith('sns:'))).toEqual(['sns:DeleteEndpoint']);
  });

  it('escalation (mention.created to email): the email consumer reads the marks and exceptions (BatchGetItem on ReadMarks), the push consumer not; both read the Inbox (held releases, retraction records)', () => {
    const email = grantsOf(json, inbox.channels!.email!.consumer);
    const push = grantsOf(json, inbox.channels!.push!.consumer);
    const tableOf = (name: string) => JSON.stringify({ 'Fn::GetAtt': [logicalId(inbox.tables.tables[name as 'inbox'].table), 'Arn'] });
    expect(email.get('dynamodb:BatchGetItem')!.sort()).toEqual([tableOf('graph'), tableOf('idempotency'), tableOf('inbox'), tableOf('readMarks')].sort());
    expect(push.get('dynamodb:BatchGetItem')!.includes(tableOf('readMarks'))).toBe(false);
    const emailEnv = json.Resources[logicalId(inbox.channels!.email!.consumer)]!.Properties!.Environment.Variables as Record<string, unknown>;
    expect(Object.keys(emailEnv)).toEqual(expect.arrayContaining(['INBOX_TABLE', 'READ_MARKS_TABLE']));
  });

  it('post alerts: an alerts queue consumed by the push consumer one job per invocation; post.published enqueues there, the consumer its next pages; nothing else sends there', () => {
    const alerts = inbox.channels!.push!.alertsQueue!;
    const alertsArn = JSON.stringify({ 'Fn::GetAtt': [logicalId(alerts.queue), 'Arn'] });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { EventSourceArn: { 'Fn::GetAtt': [logicalId(alerts.queue), 'Arn'] }, BatchSize: 1, FunctionName: { Ref: logicalId(inbox.channels!.push!.consumer) } });
    const senders = inbox.pipeline.types.filter((type) => (grantsOf(json, type.fanOut).get('sqs:SendMessage') ?? []).includes(alertsArn)).map((type) => type.detailType);
    expect(senders).toEqual(['post.published']);
    expect(grantsOf(json, inbox.channels!.push!.consumer).get('sqs:SendMessage')).toContain(alertsArn);
    expect(grantsOf(json, inbox.channels!.email!.consumer).get('sqs:SendMessage') ?? []).not.toContain(alertsArn);
  });

  it('builds the unsubscribe route without a token, every other route behind the authorizer', () => {
    const methods = Object.values(json.Resources).filter((resource) => resource.Type === 'AWS::ApiGateway::Method' && resource.Properties!.HttpMethod !== 'OPTIONS');
    const open = methods.filter((method) => method.Properties!.AuthorizationType === 'NONE');
    expect(open).toHaveLength(2);
  });

  it('SMS: a queue and consumer allowed sms-voice:SendTextMessage on the origination identity and configuration set only; an inbound topic (own key, TLS only, the service may publish) read by a function that may only put opt-out records', () => {
    const sms = inbox.channels!.sms!;
    const grants = grantsOf(json, sms.consumer);
    expect(grants.get('sms-voice:SendTextMessage')!.map((resource) => JSON.parse(resource) as unknown).sort()).toEqual([PHONE, 'arn:aws:sms-voice:eu-west-1:111122223333:configuration-set/texts'].sort());
    const env = json.Resources[logicalId(sms.consumer)]!.Properties!.Environment.Variables as Record<string, unknown>;
    expect(env).toMatchObject({ CHANNEL: 'sms', SMS_ORIGINATION_IDENTITY: PHONE, SMS_CONFIGURATION_SET: 'texts', SMS_DAILY_LIMIT_PER_USER: '3', SMS_DAILY_LIMIT: '10000' });
    const key = inbox.channels!.node.findChild('SmsInboundKey') as Parameters<typeof logicalId>[0];
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [logicalId(key), 'Arn'] } });
    template.hasResourceProperties('AWS::Lambda::Permission', { Principal: 'sns.amazonaws.com', SourceArn: { Ref: logicalId(sms.inboundTopic) } });
    // The inbound function: the opt-out records only (read, conditional put), the service's Default opt-out list only, no texts (the service answers keywords).
    const inboundGrants = grantsOf(json, sms.inbound);
    expect([...inboundGrants.keys()].filter((action) => action.startsWith('dynamodb:')).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem']);
    for (const statement of statementsOf(json, sms.inbound).filter((candidate) => String(candidate.Action).startsWith('dynamodb:'))) expect(statement.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['SMS#OPTOUT#*'] } });
    expect(inboundGrants.get('sms-voice:DeleteOptedOutNumber')).toEqual([JSON.stringify('arn:aws:sms-voice:eu-west-1:111122223333:opt-out-list/Default')]);
    expect(inboundGrants.get('sms-voice:SendTextMessage')).toBeUndefined();
    const inboundEnv = json.Resources[logicalId(sms.inbound)]!.Properties!.Environment.Variables as Record<string, unknown>;
    expect(inboundEnv).toMatchObject({ SMS_INBOUND_TOPIC_ARN: { Ref: logicalId(sms.inboundTopic) }, SMS_OPT_OUT_LIST: 'Default' });
    expect(inboundEnv.SMS_SELF_MANAGED_OPT_OUTS).toBeUndefined();
    // mention.created offers SMS: its fan-out may enqueue there.
    const fanOut = inbox.pipeline.types.find((type) => type.detailType === 'mention.created')!.fanOut;
    expect(grantsOf(json, fanOut).get('sqs:SendMessage')).toContain(JSON.stringify({ 'Fn::GetAtt': [logicalId(sms.queue.queue), 'Arn'] }));
  });

  it('is cdk-nag clean', () => {
    const violations = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(built.app).violations;
    expect(violations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(", ")}`)).toEqual([]);
  });
});
