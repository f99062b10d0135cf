import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource } from '../nag.js';
import type { HandlerFunction } from './handler-function.js';

export interface SchedulingProps {
  /** Queues one-time schedules may deliver to (the intake queues: a deferred event re-enters fan-out). */
  targets: readonly IQueue[];
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

  constructor(scope: Construct, id: string, props: SchedulingProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.group = new ScheduleGroup(this, 'Group', { removalPolicy: props.removalPolicy });
    this.role = new Role(this, 'TargetRole', {
      description: 'Assumed by EventBridge Scheduler to deliver deferred notifications to their queue',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${this.group.scheduleGroupName}/*` }) },
        },
      }),
    });
    for (const queue of props.targets) queue.grantSendMessages(this.role);
  }

  /**
   * Lets a function create (and clean up) one-time schedules in this group and hand them the
   * target role: SCHEDULE_GROUP_NAME + SCHEDULER_ROLE_ARN, scheduler:CreateSchedule/GetSchedule/
   * DeleteSchedule on this group's schedules, iam:PassRole of exactly this role to Scheduler.
   */
  allowScheduling(fn: HandlerFunction): void {
    const stack = Stack.of(this);
    fn.addEnvironment('SCHEDULE_GROUP_NAME', this.group.scheduleGroupName);
    fn.addEnvironment('SCHEDULER_ROLE_ARN', this.role.roleArn);
    const schedules = stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${this.group.scheduleGroupName}/*` });
    fn.allow(['scheduler:CreateSchedule', 'scheduler:GetSchedule', 'scheduler:DeleteSchedule'], [schedules]);
    acknowledgeWildcardResource(fn.executionRole, schedules, 'Schedule names are derived per event at run time; the grant is limited to schedules in this one schedule group.');
    fn.addStatement(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }
}
