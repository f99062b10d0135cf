/**
 * The construct library (issue 16), the cheap half of `npm run test:package`: `NotificationInbox` in
 * a host app's own stack, with the host's context (`logLevel: 'verbose'`), its own bus and alarm
 * topic, and non-default settings; and no cdk-nag import anywhere under lib/ but the nag helpers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { NotificationInbox } from '../../lib/index.js';
import { catalog as teamCatalog } from './fixtures/team-catalog.js';

const libDir = join(import.meta.dirname, '..', '..', 'lib');
const packageJson = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }>; dependencies?: Record<string, string>; peerDependencies: Record<string, string> };

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
}

describe('NotificationInbox in a host stack', () => {
  it('synthesizes with the host context, the host bus, an alarm topic, non-default settings and a catalog of its own', { timeout: 120_000 }, () => {
    // Prepare
    const app = new App({ context: { logLevel: 'verbose', 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Host');
    const bus = new EventBus(stack, 'HostBus');
    const topic = new Topic(stack, 'HostAlarms');

    // Act
    const inbox = new NotificationInbox(stack, 'Notifications', {
      auth: { mode: 'jwt', issuer: 'https://id.example.com/', audience: 'host', jwksUrl: 'https://id.example.com/jwks.json', tenantClaim: 'org.id' },
      eventBus: bus,
      settings: { feedShards: 8, logLevel: 'DEBUG' },
      removalPolicy: RemovalPolicy.DESTROY,
      alarmTopic: topic,
      // The team's own catalog (test/infra/custom-catalog.test.ts checks what the functions bundle).
      catalog: teamCatalog,
      catalogEntry: join(import.meta.dirname, 'fixtures', 'team-catalog.ts'),
    });
    const template = Template.fromStack(stack);

    // Assess
    expect(inbox.pipeline.bus).toBe(bus);
    expect(inbox.userPool).toBeUndefined();
    expect(inbox.authorizer).toBeDefined();
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: { FEED_SHARDS: '8', TENANT_CLAIM: 'org.id', POWERTOOLS_LOG_LEVEL: 'DEBUG' } } });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmActions: [{ Ref: stack.getLogicalId(topic.node.defaultChild as never) }] });
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    expect(inbox.pipeline.types.map((type) => type.detailType)).toEqual(['invoice.paid', 'follow.created', 'follow.deleted']);
    // Three catalog types, the urgent lanes of the two that notify (in this stack: the first URGENT_LANES_INLINE types') and the privacy job's rule.
    template.resourceCountIs('AWS::Events::Rule', 6);
    const urgentLanes = template;
    // invoice.paid is urgent by default: its urgent lane takes every event but an info one.
    template.hasResourceProperties('AWS::Events::Rule', { EventPattern: { 'detail-type': ['invoice.paid'], detail: { priority: ['info'] } } });
    urgentLanes.hasResourceProperties('AWS::Events::Rule', { EventPattern: { 'detail-type': ['invoice.paid'], detail: { priority: [{ 'anything-but': 'info' }, { exists: false }] } } });
    template.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: { NOTIFICATION_TYPE: 'invoice.paid' } } });
  });

  it('reads only notifications:-namespaced context in the ready-made app', async () => {
    const { configFromContext } = await import('../../lib/config.js');
    const app = new App({ context: { logLevel: 'verbose', 'notifications:logLevel': 'WARN' } });
    expect(configFromContext(app.node).logLevel).toBe('WARN');
  });
});

describe('the package', () => {
  it('imports cdk-nag nowhere in the construct library (only bin/app.ts registers it)', () => {
    const importing = sources(libDir).filter((file) => /from 'cdk-nag/.test(readFileSync(file, 'utf8')));
    expect(importing).toEqual([]);
  });

  it('has an exports map to existing files, every server-side package an optional peer, and no local-runtime dependency', () => {
    // A built entry (`./dist/<path>.js`, made by `npm pack`) exists as its source `<path>.ts` before the build.
    const sourceOf = (target: string | { default: string }) => (typeof target === 'string' ? target : target.default.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts'));
    for (const target of Object.values(packageJson.exports)) expect(() => readFileSync(join(libDir, '..', sourceOf(target)))).not.toThrow();
    // aws-cdk-lib and constructs: your app's copies; react: the `client/react` entry's; zod and the rest: what the functions bundle.
    for (const peer of ['aws-cdk-lib', 'constructs', 'react', 'zod']) expect(packageJson.peerDependencies[peer], peer).toBeDefined();
    for (const devOnly of ['dynalite', 'tsx', 'ws', 'cdk-nag', 'esbuild']) expect(packageJson.peerDependencies[devOnly], devOnly).toBeUndefined();
    expect(packageJson.dependencies ?? {}).toEqual({});
  });
});
