/**
 * Customer-managed encryption: one KMS key (given, or created by the stateful part) for every table
 * and queue. Registered on a scope, found by the queues built below it, so a queue construct needs
 * no extra prop; the default (no key) stays AWS-managed / SQS-managed encryption.
 */
import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key, type IKey } from 'aws-cdk-lib/aws-kms';
import { QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import type { Construct, IConstruct } from 'constructs';

const registered = new WeakMap<IConstruct, IKey>();

/** Makes `key` the encryption key of every queue built under `scope`. */
export function useEncryptionKey(scope: Construct, key: IKey): void {
  registered.set(scope, key);
}

/** The key registered on `scope` or its nearest ancestor. */
export function encryptionKeyOf(scope: IConstruct): IKey | undefined {
  for (const ancestor of [...scope.node.scopes].reverse()) {
    const key = registered.get(ancestor);
    if (key) return key;
  }
  return undefined;
}

/** A queue's encryption: the registered customer-managed key, else SSE-SQS (the default). */
export function queueEncryption(scope: IConstruct): Pick<QueueProps, 'encryption' | 'encryptionMasterKey' | 'dataKeyReuse'> {
  const key = encryptionKeyOf(scope);
  // Data keys reused for 5 minutes: one kms:GenerateDataKey per producer per 5 minutes, not per message.
  return key ? { encryption: QueueEncryption.KMS, encryptionMasterKey: key, dataKeyReuse: Duration.minutes(5) } : { encryption: QueueEncryption.SQS_MANAGED };
}

/**
 * The key the stack creates (`customerManagedKey: true`): rotated yearly, retained like the tables;
 * EventBridge may encrypt into the intake queues (rule targets) with it, for this account only.
 */
export function createDataKey(scope: Construct, removalPolicy: RemovalPolicy): Key {
  const key = new Key(scope, 'DataKey', {
    description: 'Encrypts the notification tables and queues (customer-managed)',
    enableKeyRotation: true,
    removalPolicy,
    pendingWindow: Duration.days(30),
  });
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'EventBridgeRuleTargets',
      principals: [new ServicePrincipal('events.amazonaws.com')],
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
  return key;
}

/** kms actions each use of a key needs: DynamoDB tables (any item call), SQS producers, SQS consumers. */
export const KEY_ACTIONS = {
  table: ['kms:Decrypt'],
  sendToQueue: ['kms:GenerateDataKey', 'kms:Decrypt'],
  consumeQueue: ['kms:Decrypt'],
} as const;
