/** Pending schedules of one EventBridge Scheduler group, listed and deleted (user erasure). */
import { DeleteScheduleCommand, GetScheduleCommand, ListSchedulesCommand, ResourceNotFoundException, type SchedulerClient } from '@aws-sdk/client-scheduler';
import type { OneTimeSchedule } from '../../core/ports/scheduler.js';

export class EventBridgeScheduleStore {
  constructor(
    private readonly client: SchedulerClient,
    private readonly groupName: string,
  ) {}

  /** ListSchedules pages, then GetSchedule of each (the payload is only in the schedule itself). */
  async list(): Promise<OneTimeSchedule[]> {
    const schedules: OneTimeSchedule[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.client.send(new ListSchedulesCommand({ GroupName: this.groupName, ...(nextToken ? { NextToken: nextToken } : {}) }));
      for (const summary of page.Schedules ?? []) {
        if (!summary.Name) continue;
        try {
          const schedule = await this.client.send(new GetScheduleCommand({ Name: summary.Name, GroupName: this.groupName }));
          schedules.push({ name: summary.Name, atMs: 0, targetArn: schedule.Target?.Arn ?? '', payload: schedule.Target?.Input ?? '' });
        } catch (error) {
          // Fired and deleted (ActionAfterCompletion DELETE) between the list and the get.
          if (!(error instanceof ResourceNotFoundException)) throw error;
        }
      }
      nextToken = page.NextToken;
    } while (nextToken);
    return schedules;
  }

  async delete(name: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteScheduleCommand({ Name: name, GroupName: this.groupName }));
      return true;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return false;
      throw error;
    }
  }
}
