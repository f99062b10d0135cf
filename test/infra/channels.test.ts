/**
 * The channels (issue 17) in the construct (off until configured: the other infra suites build none): one queue + DLQ and one
 * consumer per channel, least privilege (sns:Publish on the platform applications' endpoints only,
 * ses:SendEmail on the identity and configuration set only), the unsubscribe route without a token,
 * and no cdk-nag finding.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { NotificationInbox } from '../../lib/index.js';
import { logicalId, grantsOf, type CfnTemplate } from './synth.js';

const APNS = 'arn:aws:sns:eu-west-1:111122223333:app/APNS/acme-ios';
const FCM = 'arn:aws:sns:eu-west-1:111122223333:app/GCM/acme-android';
const IDENTITY = 'arn:aws:ses:eu-west-1:111122223333:identity/acme.example';

function build(withChannels: boolean) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
  const inbox = new NotificationInbox(stack, 'Notifications', {
    auth: { mode: 'jwt', issuer: 'https://id.example.com/', audience: 'host', jwksUrl: 'https://id.example.com/jwks.json' },
    ...(withChannels
      ? { channels: { push: { platformApplicationArns: { apns: APNS, fcm: FCM } }, email: { identityArn: IDENTITY, fromAddress: 'Acme <notify@acme.example>', configurationSetName: 'notifications' } } }
      : {}),
  });
  const template = Template.fromStack(stack);
  return { app, stack, inbox, template, json: template.toJSON() as CfnTemplate };
}

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

  it('builds the unsubscribe route without a token, every other route behind the authorizer', () => {
    const methods = Object.values(json.Resources).filter((resource) => resource.Type === 'AWS::ApiGateway::Method' && resource.Properties!.HttpMethod !== 'OPTIONS');
    const open = methods.filter((method) => method.Properties!.AuthorizationType === 'NONE');
    expect(open).toHaveLength(2);
  });

  it('is cdk-nag clean', () => {
    const violations = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(built.app).violations;
    expect(violations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(", ")}`)).toEqual([]);
  });
});
