import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccountRecovery, ClientAttributes, Mfa, StringAttribute, UserPool, type UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.js';

export interface TenantUserPoolProps {
  removalPolicy: RemovalPolicy;
}

/**
 * The `cognito` auth mode's identity provider: a user pool whose users carry an immutable
 * `custom:tenant` attribute. Only an administrator sets it (AdminCreateUser); the app client can
 * read it but not write it, so a user cannot move themselves to another tenant. The ID token
 * carries `custom:tenant` (access tokens do not carry custom attributes), so clients send the ID token.
 */
export class TenantUserPool extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string, props: TenantUserPoolProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'UserPool', {
      // Users get a tenant at creation by an administrator; self sign-up would create tenantless users.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      customAttributes: { tenant: new StringAttribute({ mutable: false, minLen: 1, maxLen: 128 }) },
      passwordPolicy: { minLength: 12, requireLowercase: true, requireUppercase: true, requireDigits: true, requireSymbols: true },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      removalPolicy: props.removalPolicy,
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
    });
    this.client = this.userPool.addClient('WebClient', {
      generateSecret: false,
      authFlows: { userSrp: true },
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      readAttributes: new ClientAttributes().withStandardAttributes({ email: true, emailVerified: true }).withCustomAttributes('tenant'),
      writeAttributes: new ClientAttributes().withStandardAttributes({ email: true }),
    });
    acknowledge(this.userPool, 'AwsSolutions-COG2', "MFA is offered (TOTP) but not forced: requiring it is the host product's sign-in policy, set on the pool after deployment.");
    const plusPlan = 'Threat protection (advanced security ENFORCED) needs the Cognito Plus feature plan, a per-user cost the operator opts into (set featurePlan PLUS on the pool).';
    acknowledge(this.userPool, 'AwsSolutions-COG3', plusPlan);
    acknowledge(this.userPool, 'AwsSolutions-COG8', plusPlan);
  }

  /** `iss` of the pool's tokens (what the Lambda authorizer verifies): https://cognito-idp.<region>.<suffix>/<pool id>. */
  get issuer(): string {
    return `https://cognito-idp.${Aws.REGION}.${Aws.URL_SUFFIX}/${this.userPool.userPoolId}`;
  }
}
