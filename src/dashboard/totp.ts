/**
 * The dashboard's second factor: a TOTP (RFC 6238: six digits, a 30-second step, HMAC-SHA1),
 * as authenticator apps and Cognito's software tokens make them. What a pending sign-in lasts,
 * how a code is written, and the `otpauth://` URI an authenticator app reads from a QR code.
 */
import { Secret, TOTP } from "otpauth";
import { MINUTE_MS } from "../domain/time.ts";

/** The name an authenticator app shows beside the person's email. */
export const TOTP_ISSUER = "Attribution dashboard";

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;

/**
 * How long a sign-in whose password was right waits for its code: long enough to set up an
 * authenticator app, as Cognito's own challenge session (the app client's, set to the same).
 */
export const PENDING_SIGN_IN_LIFETIME_MS = 5 * MINUTE_MS;

/** Wrong codes a pending sign-in takes before it must start again from the password. */
export const MAX_CODE_FAILURES = 5;

/** The code with the spaces a person may type in it taken out. */
export const normalCode = (code: string): string => code.replace(/\s+/g, "");

const totpOf = (email: string, secret: string) =>
  new TOTP({
    issuer: TOTP_ISSUER,
    label: email,
    secret: Secret.fromBase32(secret),
    algorithm: "SHA1",
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });

/** The key URI an authenticator app takes (Google Authenticator's Key Uri Format). */
export const otpauthUri = (email: string, secret: string): string =>
  totpOf(email, secret).toString();

/** A new secret of 20 random bytes (160 bits, RFC 4226's recommendation), in base32. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/**
 * The time step a code belongs to, within one step either side of `now` (a phone's clock a
 * little off), or undefined when it is not the secret's code.
 */
export const totpStepOf = (secret: string, code: string, now = Date.now()): number | undefined => {
  const totp = totpOf("", secret);
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
};

/** The code of a secret at a time (tests, and what an authenticator app shows). */
export const totpCode = (secret: string, now = Date.now()): string =>
  totpOf("", secret).generate({ timestamp: now });
