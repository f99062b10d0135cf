/**
 * Many types (issue 16): a generated catalog of 100 types synthesizes, and every stack (the App
 * stack and the nested stacks that hold types beyond the first 20) stays within CloudFormation's
 * limits: 500 resources, 200 outputs, 200 parameters.
 */
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildNotificationsApp, type NotificationsApp } from '../../lib/app.js';
import { INLINE_TYPES, TYPES_PER_NESTED_STACK } from '../../lib/constructs/notification-pipeline.js';
import { generatedCatalog } from './fixtures/generated-catalog.js';
import { catalog as projectCatalog } from '../../src/notifications/index.js';
import type { NotificationType } from '../../src/core/ports/notification-type.js';
import type { CfnTemplate } from './synth.js';

const TYPE_COUNT = 100;
const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> };

/** The generated types are the team's own: the functions bundle the module that exports them. */
const GENERATED_ENTRY = join(import.meta.dirname, 'fixtures', 'generated-catalog.ts');

function build(catalog: readonly NotificationType[], catalogEntry?: string): { built: NotificationsApp; templates: Map<Stack, CfnTemplate & { Parameters?: Record<string, unknown> }> } {
  const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
  const built = buildNotificationsApp(app, { catalog, ...(catalogEntry ? { catalogEntry } : {}) });
  const assembly = app.synth();
  const stacks = [built.app, ...built.app.node.findAll().filter((node): node is NestedStack => node instanceof NestedStack)];
  const templates = new Map(stacks.map((stack) => [stack, JSON.parse(readFileSync(`${assembly.directory}/${stack.templateFile}`, 'utf8')) as CfnTemplate]));
  return { built, templates };
}

const resourceCount = (template: CfnTemplate) => Object.keys(template.Resources).length;
const total = (templates: Map<Stack, CfnTemplate>) => [...templates.values()].reduce((sum, template) => sum + resourceCount(template), 0);

describe(`a generated catalog of ${TYPE_COUNT} types`, () => {
  let large: ReturnType<typeof build>;
  let small: ReturnType<typeof build>;

  beforeAll(() => {
    large = build(generatedCatalog(TYPE_COUNT), GENERATED_ENTRY);
    small = build(projectCatalog);
  }, 240_000);

  it('synthesizes every type, the first 20 in the App stack and the rest in nested stacks', () => {
    const rules = [...large.templates.values()].flatMap((template) => Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Events::Rule'));
    // Two per type (every generated type notifies, so its events can be urgent: an urgent lane each), and the privacy job's.
    expect(rules).toHaveLength(2 * TYPE_COUNT + 1);
    // ... and the UrgentLanes nested stack: the urgent lanes of inline types 7 to 20 (the first 6 keep theirs in the App stack).
    expect(large.templates.size).toBe(1 + 1 + Math.ceil((TYPE_COUNT - INLINE_TYPES) / TYPES_PER_NESTED_STACK));
    expect(large.built.app.pipeline.types.filter((type) => Stack.of(type.fanOut) === large.built.app)).toHaveLength(INLINE_TYPES);
  });

  it('keeps every stack within CloudFormation limits (500 resources, 200 outputs, 200 parameters)', () => {
    for (const [stack, template] of large.templates) {
      expect(resourceCount(template), stack.node.path).toBeLessThanOrEqual(500);
      expect(Object.keys(template.Outputs ?? {}).length, stack.node.path).toBeLessThanOrEqual(200);
      expect(Object.keys(template.Parameters ?? {}).length, stack.node.path).toBeLessThanOrEqual(200);
    }
  });

  it('costs at most 15 resources per type (rule, intake queue and policy, function, role, policy, logs, mapping, 2 alarms; the urgent lane\'s rule, queue, policy, mapping and age alarm; the intake DLQs are shared)', () => {
    // Nested stacks themselves are a handful of extra resources in the App stack.
    const perType = (total(large.templates) - total(small.templates)) / (TYPE_COUNT - projectCatalog.length);
    expect(perType).toBeLessThanOrEqual(15.2);
  });
});
