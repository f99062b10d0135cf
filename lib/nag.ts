/**
 * cdk-nag v3 acknowledgments (CDK `Validations.of(...).acknowledge`), each with its reason. An
 * acknowledgment covers the construct and everything under it.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
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
