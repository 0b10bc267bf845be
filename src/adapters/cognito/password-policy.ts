/**
 * The dashboard user pool's password policy: given to the pool (lib/dashboard-users.ts), and
 * said by a refusal of a password it does not take (./cognito-credentials.ts).
 */
export const COGNITO_PASSWORD_POLICY = {
  minLength: 12,
  requireLowercase: true,
  requireUppercase: true,
  requireDigits: true,
  requireSymbols: true,
} as const;

export const COGNITO_PASSWORD_RULE = `the user pool asks for at least ${COGNITO_PASSWORD_POLICY.minLength} characters with a lowercase and an uppercase letter, a digit and a symbol`;
