/**
 * Builds the CDK app once per configuration for the infra tests: the same `buildNotificationsApp`
 * as `bin/app.ts`, with `cdk.json`'s context plus overrides, then cdk-nag AwsSolutions run on the
 * whole tree. Bundling is slow (esbuild per handler), so only the configuration that checks the
 * assets bundles; the others skip it with the CDK's own `aws:cdk:bundling-stacks` switch.
 */
import { readFileSync } from 'node:fs';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { PolicyViolation } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { buildNotificationsApp, type NotificationsApp } from '../../lib/app.js';
import { CONTEXT_NAMESPACE } from '../../lib/config.js';
import type { HandlerFunction } from '../../lib/constructs/handler-function.js';

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> };

export interface Synthesized {
  app: App;
  built: NotificationsApp;
  stack: Template;
  data: Template;
  /** The synthesized App stack template as JSON (for cross-resource checks). */
  appJson: CfnTemplate;
  dataJson: CfnTemplate;
  assemblyDir: string;
  nagViolations: PolicyViolation[];
}

export interface CfnResource {
  Type: string;
  // CloudFormation properties are free-form JSON that the assertions walk deeply.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  Properties?: Record<string, any>;
  DeletionPolicy?: string;
  DependsOn?: string[];
  UpdateReplacePolicy?: string;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}

export function synthesize(context: Record<string, unknown>, options: { bundle: boolean }): Synthesized {
  const app = new App({
    context: { ...cdkJson.context, ...Object.fromEntries(Object.entries(context).map(([key, value]) => [`${CONTEXT_NAMESPACE}${key}`, value])), ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
  });
  const built = buildNotificationsApp(app);
  const assembly = app.synth();
  const stack = Template.fromStack(built.app);
  const data = Template.fromStack(built.data);
  const nagViolations = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(app).violations;
  return {
    app,
    built,
    stack,
    data,
    appJson: stack.toJSON() as CfnTemplate,
    dataJson: data.toJSON() as CfnTemplate,
    assemblyDir: assembly.directory,
    nagViolations,
  };
}

export function logicalId(construct: IConstruct): string {
  const element = construct instanceof CfnElement ? construct : (construct.node.defaultChild as CfnElement);
  return Stack.of(element).getLogicalId(element);
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** Every Allow statement of the policies attached to the function's execution role. */
export function statementsOf(template: CfnTemplate, fn: HandlerFunction): Statement[] {
  const roleId = logicalId(fn.executionRole);
  return Object.values(template.Resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => (policy.Properties!.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties!.PolicyDocument.Statement as Statement[])
    .filter((statement) => statement.Effect === 'Allow');
}

/** `action -> resources` (JSON strings) granted to the function. */
export function grantsOf(template: CfnTemplate, fn: HandlerFunction): Map<string, string[]> {
  const grants = new Map<string, string[]>();
  for (const statement of statementsOf(template, fn)) {
    const actions = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
    const resources = (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]).map((resource) => JSON.stringify(resource));
    for (const action of actions) grants.set(action, [...(grants.get(action) ?? []), ...resources]);
  }
  return grants;
}

/** Actions the function has on a table (matched by the table's construct id in the reference). */
export function tableActions(template: CfnTemplate, fn: HandlerFunction, tableId: string): string[] {
  return [...grantsOf(template, fn)]
    .filter(([action, resources]) => action.startsWith('dynamodb:') && resources.some((resource) => resource.includes(`Tables${tableId}`)))
    .map(([action]) => action)
    .sort();
}
