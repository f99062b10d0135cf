/**
 * Customer-managed keys and retention as settings (issue 18): with `customerManagedKey` every table
 * and queue uses the stack's key and each function holds exactly the kms actions its table and
 * queue calls need; retention settings reach the functions (TTL writes), the tables' TTL attribute
 * and the bus archive; cdk-nag stays clean. A host stack can bring its own key.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { beforeAll, describe, expect, it } from 'vitest';
import { HandlerFunction } from '../../lib/constructs/handler-function.js';
import { NotificationInbox } from '../../lib/index.js';
import { AwsSolutionsChecks } from 'cdk-nag';
import { grantsOf, logicalId, type CfnTemplate } from './synth.js';

/** One host stack (cheaper than the two-stack app: the suite adds ~5 s), with the key and retention settings. */
interface Built {
  app: App;
  inbox: NotificationInbox;
  template: Template;
  json: CfnTemplate;
}
let built: Built;

function build(props: ConstructorParameters<typeof NotificationInbox>[2], withHostKey = false): Built & { hostKey?: Key } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Host');
  const hostKey = withHostKey ? new Key(stack, 'HostKey', { enableKeyRotation: true }) : undefined;
  const inbox = new NotificationInbox(stack, 'Notifications', { ...props, ...(hostKey ? { encryptionKey: hostKey } : {}) });
  const template = Template.fromStack(stack);
  return { app, inbox, template, json: template.toJSON() as CfnTemplate, ...(hostKey ? { hostKey } : {}) };
}

beforeAll(() => {
  built = build({ settings: { customerManagedKey: true, ttlDays: 30, archiveRetentionDays: 400, traceTtlDays: 3, dedupTtlSeconds: 3600 } });
}, 120_000);

function resourcesOf(template: CfnTemplate, type: string): Array<{ id: string; properties: Record<string, unknown> }> {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([id, resource]) => ({ id, properties: (resource.Properties ?? {}) as Record<string, unknown> }));
}

/** The kms actions a function needs for its calls: Decrypt for any table or queue use, GenerateDataKey to send to a queue. */
function neededKeyActions(actions: readonly string[]): string[] {
  const needed = new Set<string>();
  if (actions.some((action) => action.startsWith('dynamodb:') || action === 'sqs:ReceiveMessage' || action === 'sqs:SendMessage')) needed.add('kms:Decrypt');
  if (actions.includes('sqs:SendMessage')) needed.add('kms:GenerateDataKey');
  return [...needed].sort();
}

describe('with customerManagedKey', () => {
  it('encrypts every table with the stack key', () => {
    const keyId = logicalId(built.inbox.encryptionKey!.node.defaultChild as never);
    const tables = resourcesOf(built.json, 'AWS::DynamoDB::GlobalTable');
    expect(tables).toHaveLength(5);
    built.template.resourceCountIs('AWS::KMS::Key', 1);
    built.template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    for (const table of tables) {
      expect(table.properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
      expect(JSON.stringify(table.properties.Replicas)).toContain(`{"KMSMasterKeyId":{"Fn::GetAtt":["${keyId}","Arn"]}}`);
    }
  });

  it('encrypts every queue (intake, delivery, promotion, DLQs, rule and scheduler DLQs) with the same key', () => {
    const keyArn = JSON.stringify({ 'Fn::GetAtt': [logicalId(built.inbox.encryptionKey!.node.defaultChild as never), 'Arn'] });
    const queues = resourcesOf(built.json, 'AWS::SQS::Queue');
    expect(queues.length).toBeGreaterThan(10);
    for (const queue of queues) expect(JSON.stringify(queue.properties.KmsMasterKeyId)).toBe(keyArn);
    for (const queue of queues) expect(queue.properties.SqsManagedSseEnabled).toBeUndefined();
  });

  it('grants every function exactly the kms actions its table and queue calls need, on the key only', () => {
    const keyId = logicalId(built.inbox.encryptionKey!.node.defaultChild as never);
    const functions = built.inbox.node.findAll().filter((node): node is HandlerFunction => node instanceof HandlerFunction);
    const mismatches: string[] = [];
    for (const fn of functions) {
      const grants = grantsOf(built.json, fn);
      const kms = [...grants.keys()].filter((action) => action.startsWith('kms:')).sort();
      const others = [...grants.keys()].filter((action) => !action.startsWith('kms:'));
      if (JSON.stringify(kms) !== JSON.stringify(neededKeyActions(others))) mismatches.push(`${fn.node.path}: has ${kms.join(', ') || 'none'}, needs ${neededKeyActions(others).join(', ') || 'none'}`);
      for (const action of kms) for (const resource of grants.get(action)!) if (!resource.includes(keyId)) mismatches.push(`${fn.node.path}: ${action} on ${resource}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('lets the scheduler role encrypt into its target queues', () => {
    const roleId = logicalId(built.inbox.scheduling.role);
    const policies = resourcesOf(built.json, 'AWS::IAM::Policy').filter((policy) => JSON.stringify(policy.properties.Roles).includes(roleId));
    const statements = policies.flatMap((policy) => (policy.properties.PolicyDocument as { Statement: Array<{ Action: string | string[] }> }).Statement);
    const kms = statements.flatMap((statement) => [statement.Action].flat()).filter((action) => action.startsWith('kms:'));
    expect(kms.sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
  });

  it('keeps cdk-nag AwsSolutions clean', () => {
    const violations = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(built.app).violations;
    expect(violations.map((violation) => `${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.resourceLogicalId).join(', ')}`)).toEqual([]);
  });
});

describe('retention settings', () => {
  it('reach the functions (inbox, dedup and trace TTLs), the tables\' TTL attribute and the archive', () => {
    built.template.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ INBOX_TTL_DAYS: '30', TRACE_TTL_DAYS: '3', DELIVERY_RECORD_TTL_SECONDS: '3600' }) } });
    built.template.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 400 });
    const ttl = resourcesOf(built.json, 'AWS::DynamoDB::GlobalTable').map((table) => (table.properties.TimeToLiveSpecification as { AttributeName?: string } | undefined)?.AttributeName ?? null);
    // Idempotency (expiration); Inbox, ReadMarks, Connections and Graph (an unfollowed pair's marker; older former-follower entries) by expiresAt.
    expect(ttl.sort()).toEqual(['expiration', 'expiresAt', 'expiresAt', 'expiresAt', 'expiresAt']);
  });
});

describe('NotificationInbox with the host\'s own key', () => {
  it('uses the given key for every table and queue, creating none', () => {
    const host = build({}, true);
    const keyArn = { 'Fn::GetAtt': [logicalId(host.hostKey!.node.defaultChild as never), 'Arn'] };
    host.template.resourceCountIs('AWS::KMS::Key', 1);
    for (const queue of resourcesOf(host.json, 'AWS::SQS::Queue')) expect(queue.properties.KmsMasterKeyId).toEqual(keyArn);
    for (const table of resourcesOf(host.json, 'AWS::DynamoDB::GlobalTable')) expect(JSON.stringify(table.properties.Replicas)).toContain(JSON.stringify({ KMSMasterKeyId: keyArn }));
  });

  it('changes nothing by default: AWS-managed table keys, SSE-SQS queues, no key', () => {
    const plain = build({});
    plain.template.resourceCountIs('AWS::KMS::Key', 0);
    for (const queue of resourcesOf(plain.json, 'AWS::SQS::Queue')) expect(queue.properties).toMatchObject({ SqsManagedSseEnabled: true });
    plain.template.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 30 });
  });
});
