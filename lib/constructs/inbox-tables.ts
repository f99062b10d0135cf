import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableEncryptionV2, TableV2, type Attribute, type CfnGlobalTable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { tableSpecs, type AttributeSpec, type TableName, type TableSpec } from '../../src/table-specs.js';

/** A table and the spec it was built from: functions bind it by the spec's `envVar`. */
export interface SpecTable {
  readonly spec: TableSpec;
  readonly table: TableV2;
  /** The table's customer-managed key (functions get kms:Decrypt on it); undefined with the AWS managed key. */
  readonly encryptionKey?: IKey;
}

export interface InboxTablesProps {
  removalPolicy: RemovalPolicy;
  /** Customer-managed key of every table; default the AWS managed key. */
  encryptionKey?: IKey;
}

function attribute(spec: AttributeSpec): Attribute {
  return { name: spec.name, type: spec.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}

/**
 * Every table of `src/table-specs.ts`, derived from the spec (keys and TTL are never re-declared):
 * on-demand, point-in-time recovery, encrypted with the AWS managed key (auditable in CloudTrail,
 * no key policy to maintain) or a customer-managed key, removal policy from config, deletion protection when retained.
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
        // Sparse, keys-only indexes (the erasure's owner and author indexes): only items carrying the attribute are in them.
        ...(spec.indexes
          ? { globalSecondaryIndexes: spec.indexes.map((index) => ({ indexName: index.name, partitionKey: attribute(index.partitionKey), sortKey: attribute(index.sortKey), projectionType: ProjectionType.KEYS_ONLY })) }
          : {}),
        billing: Billing.onDemand(),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryptionV2.awsManagedKey(),
        removalPolicy: props.removalPolicy,
        deletionProtection: retained,
      });
      if (!props.encryptionKey) return [name, { spec, table }];
      // TableEncryptionV2.customerManagedKey needs a region-bound stack (its key per replica region);
      // the one replica of this region-agnostic table takes the key through the template instead.
      (table.node.defaultChild as CfnGlobalTable).addPropertyOverride('Replicas.0.SSESpecification', { KMSMasterKeyId: props.encryptionKey.keyArn });
      return [name, { spec, table, encryptionKey: props.encryptionKey }];
    });
    this.tables = Object.fromEntries(entries) as { [name in TableName]: SpecTable };
  }
}
