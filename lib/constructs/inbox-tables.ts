import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableEncryptionV2, TableV2, type Attribute } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableSpecs, type AttributeSpec, type TableName, type TableSpec } from '../../src/table-specs.js';

/** A table and the spec it was built from: functions bind it by the spec's `envVar`. */
export interface SpecTable {
  readonly spec: TableSpec;
  readonly table: TableV2;
}

export interface InboxTablesProps {
  removalPolicy: RemovalPolicy;
}

function attribute(spec: AttributeSpec): Attribute {
  return { name: spec.name, type: spec.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}

/**
 * Every table of `src/table-specs.ts`, derived from the spec (keys and TTL are never re-declared):
 * on-demand, point-in-time recovery, encrypted with the AWS managed key (auditable in CloudTrail,
 * no key policy to maintain), removal policy from config, deletion protection when retained.
 */
export class InboxTables extends Construct {
  readonly tables: { readonly [name in TableName]: SpecTable };

  constructor(scope: Construct, id: string, props: InboxTablesProps) {
    super(scope, id);
    const retained = props.removalPolicy === RemovalPolicy.RETAIN;
    const entries = (Object.keys(tableSpecs) as TableName[]).map((name): [TableName, SpecTable] => {
      const spec: TableSpec = tableSpecs[name];
      const table = new TableV2(this, spec.id, {
        partitionKey: attribute(spec.partitionKey),
        ...(spec.sortKey ? { sortKey: attribute(spec.sortKey) } : {}),
        ...(spec.timeToLiveAttribute ? { timeToLiveAttribute: spec.timeToLiveAttribute } : {}),
        billing: Billing.onDemand(),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryptionV2.awsManagedKey(),
        removalPolicy: props.removalPolicy,
        deletionProtection: retained,
      });
      return [name, { spec, table }];
    });
    this.tables = Object.fromEntries(entries) as { [name in TableName]: SpecTable };
  }
}
