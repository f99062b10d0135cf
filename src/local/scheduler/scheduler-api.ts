/**
 * Local stand-in for the EventBridge Scheduler API (REST-JSON, as `@aws-sdk/client-scheduler` sends
 * it under `<http>/_aws/scheduler`): CreateSchedule, GetSchedule, DeleteSchedule and ListSchedules
 * of one-time `at(...)` schedules in the runtime's one schedule group, kept by the local scheduler
 * (persisted, fired by timers). So the functions schedule through the same SDK adapter locally as on
 * AWS, and a schedule remembers the role it was created with (the role that delivers it).
 * Like the SQS endpoint, it answers callers on this machine that sign with the local credentials.
 */
import * as z from 'zod';
import { isCallerOnThisMachine, type LocalRequest, type LocalResponse, type LocalRoute } from '../http/router.js';
import { LOCAL_ACCOUNT_ID } from '../sqs/local-account.js';
import type { LocalSqsCredentials } from '../sqs/credentials.js';
import { verifySigV4 } from '../sqs/sigv4.js';
import type { LocalScheduler } from './local-scheduler.js';

export const LOCAL_SCHEDULER_PATH = '/_aws/scheduler';
/** The local runtime's schedule group (the CDK app's `Scheduling` group). */
export const LOCAL_SCHEDULE_GROUP = 'notifications';
/** The roles Scheduler assumes locally: deferred sends and holds, and snooze comebacks (the CDK app's two target roles). */
export const LOCAL_SCHEDULER_ROLES = {
  target: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/LocalSchedulerTarget`,
  snooze: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/LocalSnoozeSchedulerTarget`,
} as const;

const AT_EXPRESSION = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/;

const createScheduleSchema = z.object({
  GroupName: z.string().optional(),
  ScheduleExpression: z.string().regex(AT_EXPRESSION, 'only one-time at(yyyy-mm-ddThh:mm:ss) schedules are served locally'),
  ScheduleExpressionTimezone: z.literal('UTC').optional(),
  Target: z.object({ Arn: z.string().min(1), RoleArn: z.string().min(1), Input: z.string().optional() }).loose(),
}).loose();

function apiError(status: number, type: string, message: string): LocalResponse {
  return { status, headers: { 'content-type': 'application/json', 'x-amzn-errortype': type }, body: JSON.stringify({ Message: message }) };
}

const ok = (body: unknown): LocalResponse => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

export interface LocalSchedulerRouteOptions {
  region: string;
  credentials?: LocalSqsCredentials;
  serverHost: string;
}

export function createLocalSchedulerRoute(scheduler: LocalScheduler, options: LocalSchedulerRouteOptions): LocalRoute {
  const scheduleArn = (name: string) => `arn:aws:scheduler:${options.region}:${LOCAL_ACCOUNT_ID}:schedule/${LOCAL_SCHEDULE_GROUP}/${name}`;
  const groupOf = (request: LocalRequest, given?: string) => given ?? request.url.searchParams.get('groupName') ?? request.url.searchParams.get('ScheduleGroup') ?? 'default';

  const create = async (name: string, request: LocalRequest): Promise<LocalResponse> => {
    let input: unknown;
    try {
      input = JSON.parse(request.body.toString('utf8') || '{}');
    } catch {
      return apiError(400, 'ValidationException', 'body is not JSON');
    }
    const parsed = createScheduleSchema.safeParse(input);
    if (!parsed.success) return apiError(400, 'ValidationException', parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    const groupName = groupOf(request, parsed.data.GroupName);
    if (groupName !== LOCAL_SCHEDULE_GROUP) return apiError(404, 'ResourceNotFoundException', `Schedule group ${groupName} does not exist.`);
    const atMs = Date.parse(`${AT_EXPRESSION.exec(parsed.data.ScheduleExpression)![1]}Z`);
    const outcome = await scheduler.scheduleOnce({ name, atMs, targetArn: parsed.data.Target.Arn, payload: parsed.data.Target.Input ?? '', groupName, roleArn: parsed.data.Target.RoleArn });
    if (outcome === 'already_scheduled') return apiError(409, 'ConflictException', `Schedule ${name} already exists.`);
    return ok({ ScheduleArn: scheduleArn(name) });
  };

  return {
    async handle(request: LocalRequest) {
      const path = request.url.pathname;
      if (path !== LOCAL_SCHEDULER_PATH && !path.startsWith(`${LOCAL_SCHEDULER_PATH}/`)) return undefined;
      if (!isCallerOnThisMachine(request, options.serverHost)) return apiError(403, 'AccessDeniedException', 'the local Scheduler endpoint answers callers on this machine only');
      if (options.credentials) {
        const failure = await verifySigV4(request, options.credentials, 'scheduler');
        if (failure) return apiError(403, failure.code, failure.message);
      }
      const rest = path.slice(LOCAL_SCHEDULER_PATH.length);
      if (rest === '/schedules' && request.method === 'GET') {
        if (groupOf(request) !== LOCAL_SCHEDULE_GROUP) return ok({ Schedules: [] });
        return ok({ Schedules: scheduler.list().map((schedule) => ({ Name: schedule.name, GroupName: LOCAL_SCHEDULE_GROUP, Arn: scheduleArn(schedule.name), State: 'ENABLED', Target: { Arn: schedule.targetArn } })) });
      }
      const name = /^\/schedules\/([0-9a-zA-Z\-_.]{1,64})$/.exec(rest)?.[1];
      if (!name) return apiError(404, 'ResourceNotFoundException', `no local Scheduler operation ${request.method} ${rest}`);
      if (request.method === 'POST') return create(name, request);
      const schedule = scheduler.get(name);
      const inGroup = schedule !== undefined && groupOf(request) === LOCAL_SCHEDULE_GROUP;
      if (request.method === 'GET') {
        if (!inGroup) return apiError(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
        return ok({
          Arn: scheduleArn(name),
          Name: name,
          GroupName: LOCAL_SCHEDULE_GROUP,
          ScheduleExpression: `at(${new Date(schedule.atMs).toISOString().slice(0, 19)})`,
          State: 'ENABLED',
          Target: { Arn: schedule.targetArn, RoleArn: schedule.roleArn ?? '', Input: schedule.payload },
        });
      }
      if (request.method === 'DELETE') {
        if (!inGroup || !(await scheduler.delete(name))) return apiError(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
        return ok({});
      }
      return apiError(405, 'ValidationException', `${request.method} is not a Scheduler operation on a schedule`);
    },
  };
}
