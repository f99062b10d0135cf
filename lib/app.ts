/**
 * Builds the whole app into a CDK `App`: the stateful DataStack and the stateless AppStack, with
 * settings from `notifications:`-namespaced context. `bin/app.ts` and the infra tests both
 * call this, so the tests assert exactly what `cdk deploy` deploys.
 */
import { Tags, Validations, type App, type IPolicyValidationPlugin } from 'aws-cdk-lib';
import { resolveCatalog } from './catalog.js';
import { configFromContext, type NotificationsConfig } from './config.js';
import { AppStack } from './stacks/app-stack.js';
import { DataStack } from './stacks/data-stack.js';
import type { NotificationType } from '../src/core/ports/notification-type.js';

export interface NotificationsApp {
  config: NotificationsConfig;
  data: DataStack;
  app: AppStack;
}

export interface BuildOptions {
  /**
   * Synth-time validation plugins, e.g. cdk-nag's `new AwsSolutionsChecks(app, { verbose: true })`
   * (`bin/app.ts` registers it). The library itself never imports cdk-nag.
   */
  validationPlugins?: IPolicyValidationPlugin[];
  /** The notification types (default: the project catalog, `src/notifications/index.ts`). */
  catalog?: readonly NotificationType[];
  /** The module that exports `catalog`, bundled in place of the package's (`NotificationInbox` `catalogEntry`). */
  catalogEntry?: string;
}

export function buildNotificationsApp(app: App, options: BuildOptions = {}): NotificationsApp {
  const config = configFromContext(app.node);
  resolveCatalog(options.catalog, options.catalogEntry);
  const data = new DataStack(app, `${config.stackPrefix}Data`, {
    config,
    description: 'Serverless notifications: tables, cursor key, user pool (stateful)',
  });
  const stateless = new AppStack(app, `${config.stackPrefix}App`, {
    config,
    tables: data.tables,
    cursorSecret: data.cursorSecret,
    userPool: data.userPool,
    ...(data.encryptionKey ? { encryptionKey: data.encryptionKey } : {}),
    ...(data.audit ? { audit: data.audit } : {}),
    ...(options.catalog ? { catalog: options.catalog } : {}),
    ...(options.catalogEntry ? { catalogEntry: options.catalogEntry } : {}),
    description: 'Serverless notifications: bus, queues, functions, REST and WebSocket APIs, schedules, alarms (stateless)',
  });
  stateless.addStackDependency(data);
  Tags.of(app).add('project', 'serverless-notifications');
  if (options.validationPlugins?.length) Validations.of(app).addPlugins(...options.validationPlugins);
  return { config, data, app: stateless };
}
