/**
 * What IAM authorizes for each recorded call, in the template's world: the action, the resource ARN
 * and the request context (`dynamodb:LeadingKeys` with every partition key the call touches on that
 * table, `iam:PassedToService` of the role a CreateSchedule passes). One call may need several
 * (SES SendEmail: the identity and the configuration set; CreateSchedule: the schedule and PassRole).
 * A call this cannot translate is a finding, never skipped.
 */
import type { RecordedAwsCall } from '../../src/local/aws-calls/recorded-call.js';
import { LOCAL_SCHEDULER_ROLES, LOCAL_SCHEDULE_GROUP } from '../../src/local/scheduler/scheduler-api.js';
import type { SchedulerRoleName } from '../../src/local/deployed/local-deployment.js';
import type { TemplateWorld } from './template-world.js';

export interface IamRequest {
  /** The check's principal: a function (`rest-write`) or a Scheduler role (`role:snooze`). */
  principal: string;
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
}

export type Translation = { requests: IamRequest[] } | { problem: string };

/** The IAM action of each SDK operation that is not simply `<service prefix>:<operation>`. */
const SQS_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

/** The check's principal of a recorded one: Scheduler's local roles are the stack's two target roles. */
export function principalOfRecorded(recorded: string): string | undefined {
  if (!recorded.startsWith('role:')) return recorded;
  const arn = recorded.slice('role:'.length);
  const role = (Object.entries(LOCAL_SCHEDULER_ROLES) as [SchedulerRoleName, string][]).find(([, localArn]) => localArn === arn)?.[0];
  return role ? `role:${role}` : undefined;
}

export function iamRequestsOf(call: RecordedAwsCall, world: TemplateWorld): Translation {
  const principal = principalOfRecorded(call.principal);
  if (!principal) return { problem: `no template role for ${call.principal}` };
  const target = call.target;
  const request = (action: string, resource: string | undefined, context: IamRequest['context'] = {}): IamRequest | string =>
    resource ? { principal, action, resource, context } : `no template resource for ${JSON.stringify(target)}`;
  const done = (...requests: (IamRequest | string)[]): Translation => {
    const problem = requests.find((entry): entry is string => typeof entry === 'string');
    return problem ? { problem } : { requests: requests as IamRequest[] };
  };
  switch (target.kind) {
    case 'table': {
      const table = world.tableArn(target.table);
      const resource = table && target.index ? `${table}/index/${target.index}` : table;
      // Scan names no key: ForAllValues over no key would pass, so it is evaluated with none (and no grant allows Scan).
      return done(request(`dynamodb:${call.operation}`, resource, call.operation === 'Scan' ? {} : { 'dynamodb:LeadingKeys': target.partitionKeys }));
    }
    case 'queue':
      return done(request(`sqs:${SQS_ACTIONS[call.operation] ?? call.operation}`, world.queueArn(target.queue)));
    case 'sns':
      return done(request(`sns:${call.operation}`, target.arn));
    case 'ses': {
      const identity = target.identity.startsWith('arn:') ? target.identity : `arn:aws:ses:${world.region}:${world.accountId}:identity/${target.identity}`;
      return done(
        request(`ses:${call.operation}`, identity),
        ...(target.configurationSet ? [request(`ses:${call.operation}`, `arn:aws:ses:${world.region}:${world.accountId}:configuration-set/${target.configurationSet}`)] : []),
      );
    }
    case 'sms': {
      // SendTextMessage is authorized on the origination identity and the configuration set it names.
      const identity = target.originationIdentity.startsWith('arn:') ? target.originationIdentity : undefined;
      return done(
        request(`sms-voice:${call.operation}`, identity),
        ...(target.configurationSet ? [request(`sms-voice:${call.operation}`, `arn:aws:sms-voice:${world.region}:${world.accountId}:configuration-set/${target.configurationSet}`)] : []),
      );
    }
    case 'smsOptOutList':
      // DeleteOptedOutNumber is authorized on the opt-out list.
      return done(request(`sms-voice:${call.operation}`, target.optOutList.startsWith('arn:') ? target.optOutList : `arn:aws:sms-voice:${world.region}:${world.accountId}:opt-out-list/${target.optOutList}`));
    case 'schedule': {
      if (target.group !== LOCAL_SCHEDULE_GROUP) return { problem: `schedule group ${target.group} is not the local one` };
      const group = world.scheduleGroupName();
      const schedule = group ? `arn:aws:scheduler:${world.region}:${world.accountId}:schedule/${group}/${target.name}` : undefined;
      if (call.operation !== 'CreateSchedule') return done(request(`scheduler:${call.operation}`, schedule));
      const passed = (Object.entries(LOCAL_SCHEDULER_ROLES) as [SchedulerRoleName, string][]).find(([, arn]) => arn === target.roleArn)?.[0];
      if (!passed) return { problem: `CreateSchedule passes ${String(target.roleArn)}, not a local Scheduler role` };
      // Scheduler checks iam:PassRole of the role a schedule names.
      return done(request('scheduler:CreateSchedule', schedule), request('iam:PassRole', world.schedulerRoleArn(passed), { 'iam:PassedToService': 'scheduler.amazonaws.com' }));
    }
    case 'connection': {
      const stage = world.webSocketStageArn();
      return done(request('execute-api:ManageConnections', stage ? `${stage}/${target.method}/@connections/${target.connectionId}` : undefined));
    }
    case 'unknown':
      return { problem: `cannot translate ${call.service} ${call.operation}: ${target.detail}` };
  }
}
