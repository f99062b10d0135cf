import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Queue, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledge, acknowledgeWildcardResource } from '../nag.js';
import { KEY_ACTIONS, queueEncryption } from './data-protection.js';
import type { HandlerFunction } from './handler-function.js';
import { ENV } from '../../src/env.js';

export interface SchedulingProps {
  /**
   * Queues one-time schedules may deliver to: the intake queues (a `sendAt` event re-enters its
   * fan-out) and the urgent delivery queue (release of pushes held for quiet hours or rate limits).
   */
  targets: readonly IQueue[];
  /** The one queue snooze comebacks go to (the urgent delivery queue). */
  snoozeTarget: IQueue;
  removalPolicy: RemovalPolicy;
}

/**
 * Deferred sends (`sendAt`, quiet hours): an EventBridge Scheduler group for the one-time schedules
 * and the role Scheduler assumes to deliver them. The role trusts Scheduler only for this account's
 * schedules in this group (confused-deputy guard) and may only send to the target queues.
 */
export class Scheduling extends Construct {
  readonly group: ScheduleGroup;
  readonly role: Role;
  /**
   * The role of snooze comebacks (`snooze-*` schedules, created by the internet-facing REST write
   * function): it may only send to the urgent delivery queue (and the DLQ), never to an intake queue.
   */
  readonly snoozeRole: Role;
  /** Where Scheduler puts a schedule's payload when it cannot deliver it to the target. */
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: SchedulingProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.group = new ScheduleGroup(this, 'Group', { removalPolicy: props.removalPolicy });
    // Scheduler passes the schedule GROUP's ARN as aws:SourceArn when it assumes a role; AWS's
    // confused-deputy guide says not to scope it to schedules or a name prefix
    // (`schedule/<group>/*` never matches, so every schedule would fail to assume the role).
    const assumedByScheduler = () =>
      new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnEquals: { 'aws:SourceArn': this.group.scheduleGroupArn },
        },
      });
    this.role = new Role(this, 'TargetRole', { description: 'Assumed by EventBridge Scheduler to deliver deferred notifications to their queue', assumedBy: assumedByScheduler() });
    this.snoozeRole = new Role(this, 'SnoozeTargetRole', { description: 'Assumed by EventBridge Scheduler to put snooze comebacks on the urgent delivery queue (and nowhere else)', assumedBy: assumedByScheduler() });
    this.deadLetterQueue = new Queue(this, 'Dlq', { ...queueEncryption(this), enforceSSL: true, retentionPeriod: Duration.days(14) });
    acknowledge(this.deadLetterQueue, 'AwsSolutions-SQS3', 'This queue IS a dead-letter queue: EventBridge Scheduler puts schedules here that it could not deliver to their target queue.');
    const allowSend = (role: Role, queues: readonly IQueue[]) => {
      const keys = new Set<IKey>();
      for (const queue of queues) {
        role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
        if (queue.encryptionMasterKey) keys.add(queue.encryptionMasterKey);
      }
      // Customer-managed key: Scheduler encrypts what it sends to the (KMS-encrypted) queues.
      for (const key of keys) role.addToPrincipalPolicy(new PolicyStatement({ actions: [...KEY_ACTIONS.sendToQueue], resources: [key.keyArn] }));
    };
    allowSend(this.role, [...props.targets, this.deadLetterQueue]);
    allowSend(this.snoozeRole, [props.snoozeTarget, this.deadLetterQueue]);
  }

  /**
   * Lets a function create one-time schedules in this group and hand them the target role:
   * SCHEDULE_GROUP_NAME, SCHEDULER_ROLE_ARN, SCHEDULER_DLQ_ARN; scheduler:CreateSchedule on this
   * group's schedules (an existing name is the idempotent "already scheduled" answer, and
   * ActionAfterCompletion DELETE removes fired schedules: no Get or Delete needed); iam:PassRole of
   * exactly this role, to Scheduler only.
   */
  allowScheduling(fn: HandlerFunction): void {
    this.allow(fn, this.role, '*', 'Schedule names are derived per event at run time; the grant is limited to schedules in this one schedule group.');
  }

  /**
   * The REST write function's snooze comebacks: CreateSchedule of `snooze-*` schedules only (the
   * names `scheduleName('snooze', ...)` builds) and PassRole of the snooze role only, which sends to
   * the urgent queue and nowhere else: taken over, the function still cannot schedule a message onto
   * an intake queue (an unsigned event) or pass the role that can.
   */
  allowSnoozeScheduling(fn: HandlerFunction): void {
    this.allow(fn, this.snoozeRole, 'snooze-*', 'Snooze schedule names are derived per comeback at run time; the grant is limited to snooze-* schedules in this one schedule group.');
  }

  private allow(fn: HandlerFunction, role: Role, names: string, reason: string): void {
    const stack = Stack.of(this);
    fn.addEnvironment(ENV.SCHEDULE_GROUP_NAME, this.group.scheduleGroupName);
    fn.addEnvironment(ENV.SCHEDULER_ROLE_ARN, role.roleArn);
    fn.addEnvironment(ENV.SCHEDULER_DLQ_ARN, this.deadLetterQueue.queueArn);
    const schedules = stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${this.group.scheduleGroupName}/${names}` });
    fn.allow(['scheduler:CreateSchedule'], [schedules]);
    acknowledgeWildcardResource(fn.executionRole, schedules, reason);
    fn.addStatement(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }
}
