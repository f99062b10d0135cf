/**
 * Which resource of the synthesized stack (`scripts/deployed/local-stack.ts`: the construct library
 * in jwt mode with both channels, as the local runtime runs it) each local resource stands in for,
 * and which template function each local function is. Written beside the template in `cdk.out` by
 * the synth script, read by the deployed-bundles mode of the local runtime (the functions'
 * environment) and by the least-privilege check (the policies). Plain data: no CDK import here.
 */
import type { LambdaFunctionName } from '../../lambda/functions.js';
import type { TableName } from '../../table-specs.js';

/** The local resource a template resource stands in for. */
export type LocalResource =
  | { kind: 'table'; table: TableName }
  /** A local queue by name (`UrgentDelivery`, `IntakeMentionCreated`, `PushDelivery`, ...). */
  | { kind: 'queue'; queue: string }
  /** A DLQ (the local runtime keeps one per queue; the stack shares some): no function sends to one. */
  | { kind: 'deadLetterQueue'; of: string }
  | { kind: 'schedulerRole'; role: SchedulerRoleName }
  | { kind: 'scheduleGroup' }
  | { kind: 'webSocketApi' }
  | { kind: 'webSocketStage' }
  | { kind: 'secret'; secret: 'cursor' | 'deliveryJob' | 'snoozeJob' | 'unsubscribe' }
  /** A function's own log group (the Lambda service writes its logs with the function's role). */
  | { kind: 'logGroup'; of: string };

export type SchedulerRoleName = 'target' | 'snooze';

export interface DeployedFunction {
  /** The function's name in `src/lambda/functions.ts`. */
  handler: LambdaFunctionName;
  logicalId: string;
  roleLogicalId: string;
  /** `asset.<hash>` in cdk.out: the esbuild bundle (when synthesized with bundling). */
  assetDir?: string;
}

export interface LocalDeploymentMap {
  stackName: string;
  /** The template file in cdk.out. */
  templateFile: string;
  region: string;
  accountId: string;
  /** By recording principal (`rest-write`, `fanout:mention.created`, `delivery:urgent`, `channel:push`). */
  functions: Record<string, DeployedFunction>;
  /** The Scheduler target roles' logical ids. */
  schedulerRoles: Record<SchedulerRoleName, string>;
  /** By logical id. */
  resources: Record<string, LocalResource>;
}

/** The file of the map in cdk.out. */
export const LOCAL_DEPLOYMENT_FILE = 'local-deployment.json';
