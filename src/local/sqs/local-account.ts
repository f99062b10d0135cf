/** The account id of every local ARN and queue URL (LocalStack's convention). */
export const LOCAL_ACCOUNT_ID = '000000000000';
