/** CDK app entry (`cdk.json`: `npx tsx bin/app.ts`). Settings: `-c key=value`, see README "Deploy". */
import { App } from 'aws-cdk-lib';
import { buildNotificationsApp } from '../lib/app.js';

const app = new App();
buildNotificationsApp(app);
app.synth();
