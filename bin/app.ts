/** CDK app entry (`cdk.json`: `npx tsx bin/app.ts`). Settings: `-c notifications:key=value`, see docs/settings.md. */
import { App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildNotificationsApp } from '../lib/app.js';

const app = new App();
// This repository's own app runs cdk-nag AwsSolutions at synth; the construct library does not need it.
buildNotificationsApp(app, { validationPlugins: [new AwsSolutionsChecks(app, { verbose: true })] });
app.synth();
