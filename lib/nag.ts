/**
 * cdk-nag v3 acknowledgments (CDK `Validations.of(...).acknowledge`), each with its reason. An
 * acknowledgment covers the construct and everything under it. No cdk-nag import: the construct
 * library works without it; only an app that registers the AwsSolutions plugin runs the checks.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/**
 * Acknowledges AwsSolutions-IAM5 for exactly one wildcard resource (e.g. `.../POST/@connections/*`),
 * computed the way cdk-nag names the finding, so any other wildcard on the same role still fails.
 */
export function acknowledgeWildcardResource(scope: IConstruct, resourceArn: string, reason: string): void {
  const finding = flattenCfnReference(Stack.of(scope).resolve(resourceArn));
  acknowledge(scope, `AwsSolutions-IAM5[Resource::${finding}]`, reason);
}

/**
 * A CloudFormation reference as cdk-nag names it in a finding id: the same rules as cdk-nag's
 * `flattenCfnReference` (Apache-2.0, cdk-nag/src/utils/flatten-cfn-reference.ts).
 */
function flattenCfnReference(reference: unknown): string {
  const visit = (node: unknown): string => {
    if (node === undefined) return '';
    if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/}/g, '>');
    const fn = (node ?? {}) as Record<string, unknown>;
    if (fn['Fn::Join']) {
      const [delimiter, items] = fn['Fn::Join'] as [string, unknown[]];
      return items.map(visit).join(delimiter);
    }
    if (fn['Fn::Sub']) return visit(fn['Fn::Sub']);
    if (fn['Fn::GetAtt']) {
      const [resource, attribute] = fn['Fn::GetAtt'] as [unknown, unknown];
      return `<${visit(resource)}.${visit(attribute)}>`;
    }
    if (fn['Fn::ImportValue']) return visit(fn['Fn::ImportValue']);
    if (fn.Ref) return `<${visit(fn.Ref)}>`;
    return JSON.stringify(node);
  };
  return visit(reference);
}
