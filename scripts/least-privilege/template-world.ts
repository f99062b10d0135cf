/**
 * The synthesized stack as a deployed world the IAM simulator can evaluate: every resource gets the
 * physical name the template gives it (or its logical id) and the ARN AWS would, every policy of a
 * role is resolved to plain JSON, and each local resource maps to its template resource through the
 * local-deployment map (`src/local/deployed/local-deployment.ts`).
 */
import { resolveCfn, type CfnWorld } from '../../src/local/deployed/cfn-resolve.js';
import type { LocalDeploymentMap, LocalResource, SchedulerRoleName } from '../../src/local/deployed/local-deployment.js';
import type { TableName } from '../../src/table-specs.js';

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface Template {
  Resources: Record<string, TemplateResource>;
}

export interface PolicyStatement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface PolicyDocument {
  Version?: string;
  Statement: PolicyStatement[];
}

/** A principal of the check: a function's execution role or a Scheduler target role. */
export interface Principal {
  /** The recording's name (`rest-write`, `role:snooze`). */
  name: string;
  roleArn: string;
  policies: { name: string; document: PolicyDocument }[];
}

/** The name property of each resource type that has one (else the logical id is the name). */
const NAME_PROPERTIES = ['TableName', 'QueueName', 'RoleName', 'Name', 'LogGroupName', 'StageName', 'FunctionName'];

export class TemplateWorld {
  readonly region: string;
  readonly accountId: string;
  private readonly world: CfnWorld;
  private readonly logicalIdOf = new Map<string, string>();

  constructor(
    readonly template: Template,
    readonly map: LocalDeploymentMap,
  ) {
    this.region = map.region;
    this.accountId = map.accountId;
    this.world = { region: this.region, accountId: this.accountId, lookup: (logicalId, attribute) => this.attribute(logicalId, attribute) };
    for (const [logicalId, resource] of Object.entries(map.resources)) this.logicalIdOf.set(keyOf(resource), logicalId);
  }

  /** `Ref` (no attribute) or an attribute of a resource, as AWS would report it for this template. */
  attribute(logicalId: string, attribute?: string): string | undefined {
    const resource = this.template.Resources[logicalId];
    if (!resource) return undefined;
    const properties = resource.Properties ?? {};
    const declared = NAME_PROPERTIES.map((property) => properties[property]).find((value): value is string => typeof value === 'string');
    const name = declared ?? logicalId;
    const arn = (service: string, resourcePart: string, region = this.region) => `arn:aws:${service}:${region}:${this.accountId}:${resourcePart}`;
    switch (resource.Type) {
      case 'AWS::DynamoDB::GlobalTable':
      case 'AWS::DynamoDB::Table':
        return attribute === 'Arn' ? arn('dynamodb', `table/${name}`) : name;
      case 'AWS::SQS::Queue':
        if (attribute === 'Arn') return arn('sqs', name);
        if (attribute === 'QueueName') return name;
        return `https://sqs.${this.region}.amazonaws.com/${this.accountId}/${name}`;
      case 'AWS::IAM::Role':
        return attribute === 'Arn' ? `arn:aws:iam::${this.accountId}:role/${name}` : name;
      case 'AWS::Scheduler::ScheduleGroup':
        return attribute === 'Arn' ? arn('scheduler', `schedule-group/${name}`) : name;
      case 'AWS::Logs::LogGroup':
        return attribute === 'Arn' ? arn('logs', `log-group:${name}:*`) : name;
      case 'AWS::SecretsManager::Secret':
        return arn('secretsmanager', `secret:${name}`);
      case 'AWS::KMS::Key':
        return attribute === 'Arn' ? arn('kms', `key/${logicalId}`) : logicalId;
      case 'AWS::ApiGatewayV2::Api':
      case 'AWS::ApiGateway::RestApi':
        // Ref is the API id (its Name property is not).
        return attribute === undefined ? logicalId : undefined;
      case 'AWS::ApiGatewayV2::Stage':
        return attribute === undefined ? name : undefined;
      case 'AWS::Lambda::Function':
        return attribute === 'Arn' ? arn('lambda', `function:${name}`) : name;
      case 'AWS::Events::EventBus':
        return attribute === 'Arn' ? arn('events', `event-bus/${name}`) : name;
      default:
        return attribute === undefined || attribute === 'Arn' ? `arn:aws:${resource.Type}:${logicalId}` : undefined;
    }
  }

  resolve(value: unknown): unknown {
    return resolveCfn(value, this.world);
  }

  /** The template resource a local resource stands for. */
  logicalIdFor(resource: LocalResource): string | undefined {
    return this.logicalIdOf.get(keyOf(resource));
  }

  tableArn(table: TableName): string | undefined {
    const id = this.logicalIdFor({ kind: 'table', table });
    return id ? this.attribute(id, 'Arn') : undefined;
  }

  queueArn(queue: string): string | undefined {
    const id = this.logicalIdFor({ kind: 'queue', queue });
    return id ? this.attribute(id, 'Arn') : undefined;
  }

  scheduleGroupName(): string | undefined {
    const id = this.logicalIdFor({ kind: 'scheduleGroup' });
    return id ? this.attribute(id) : undefined;
  }

  schedulerRoleArn(role: SchedulerRoleName): string {
    return this.attribute(this.map.schedulerRoles[role], 'Arn')!;
  }

  /** `arn:...:execute-api:...:<api id>/<stage>` of the WebSocket API, to which `/<METHOD>/@connections/<id>` is appended. */
  webSocketStageArn(): string | undefined {
    const api = this.logicalIdFor({ kind: 'webSocketApi' });
    const stage = this.logicalIdFor({ kind: 'webSocketStage' });
    if (!api || !stage) return undefined;
    return `arn:aws:execute-api:${this.region}:${this.accountId}:${this.attribute(api)!}/${this.attribute(stage)!}`;
  }

  /** A function's execution role, or a Scheduler target role, with every policy attached to it resolved. */
  principal(name: string): Principal | undefined {
    const roleLogicalId = name.startsWith('role:') ? this.map.schedulerRoles[name.slice('role:'.length) as SchedulerRoleName] : this.map.functions[name]?.roleLogicalId;
    if (!roleLogicalId || !this.template.Resources[roleLogicalId]) return undefined;
    const role = this.template.Resources[roleLogicalId]!;
    const policies: Principal['policies'] = [];
    for (const [logicalId, resource] of Object.entries(this.template.Resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const roles = (resource.Properties?.Roles ?? []) as unknown[];
      if (!roles.some((entry) => JSON.stringify(entry) === JSON.stringify({ Ref: roleLogicalId }))) continue;
      policies.push({ name: logicalId, document: this.resolve(resource.Properties!.PolicyDocument) as PolicyDocument });
    }
    // Every grant must be one the check sees: inline and managed policies would escape it.
    if (role.Properties?.Policies || role.Properties?.ManagedPolicyArns) throw new Error(`role ${roleLogicalId} has inline or managed policies the check does not read`);
    return { name, roleArn: this.attribute(roleLogicalId, 'Arn')!, policies };
  }

  /**
   * A readable, stable label of a granted resource: each mapped resource named by what it stands
   * for (`{table:inbox}`, `{queue:UrgentDelivery}`, `{own log group}`), the local account and
   * region left out.
   */
  label(resource: string, principal: string): string {
    const text = (local: LocalResource) => (local.kind === 'logGroup' && local.of === principal ? '{own log group}' : `{${keyOf(local)}}`);
    const entries = Object.entries(this.map.resources);
    // A whole ARN or name of a mapped resource; else each segment that is one's name (an API id, a stage, a group).
    for (const [logicalId, local] of entries) if (resource === this.attribute(logicalId, 'Arn') || resource === this.attribute(logicalId)) return text(local);
    const names = new Map(entries.map(([logicalId, local]) => [this.attribute(logicalId), text(local)]));
    return resource
      .replace(`:${this.region}:${this.accountId}:`, '::')
      .replace(`::${this.accountId}:`, '::')
      .split(/([/:])/)
      .map((segment) => names.get(segment) ?? segment)
      .join('');
  }
}

/** One string per local resource (the key of the reverse map and the label inside braces). */
export function keyOf(resource: LocalResource): string {
  switch (resource.kind) {
    case 'table':
      return `table:${resource.table}`;
    case 'queue':
      return `queue:${resource.queue}`;
    case 'deadLetterQueue':
      return `dlq:${resource.of}`;
    case 'schedulerRole':
      return `role:${resource.role}`;
    case 'secret':
      return `secret:${resource.secret}`;
    case 'logGroup':
      return `log group:${resource.of}`;
    default:
      return resource.kind;
  }
}
