/**
 * Signing webhooks: the app's backend must be able to tell a delivery from the service from
 * anyone's POST to the same URL, and a fresh one from a recorded one played again. Each
 * delivery carries `X-Attribution-Signature: t=<unix seconds>,v1=<hex>`, where the hex is
 * HMAC-SHA256 with the webhook's secret over `<t>.<raw body>` (the scheme Stripe's webhooks
 * made familiar). The receiver recomputes it over the bytes it received, compares in constant
 * time, and refuses a timestamp more than five minutes from its own clock. Verification in
 * Node, Python and Go: docs/postbacks.md#webhooks-and-verifying-them.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-Attribution-Signature";
/** The send's id, the same on every attempt: a receiver drops a delivery it already took. */
export const DELIVERY_HEADER = "X-Attribution-Delivery";
/** Which attempt this is (1 to 10, a webhook's retries: ./retries.ts); above 1 it is a retry. */
export const ATTEMPT_HEADER = "X-Attribution-Attempt";

/** How far a signature's time may be from the verifier's clock, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/** The signature scheme's version: a later one is added beside it, never in its place. */
const SCHEME = "v1";

/** A new webhook secret: 32 random bytes, shown once to the owner and then kept sealed. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`;

type Body = string | Uint8Array;

/** The hex HMAC-SHA256 of `<timestamp>.<body>` under the secret. */
export const signatureOf = (secret: string, timestamp: number, body: Body): string =>
  createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex");

/**
 * The `X-Attribution-Signature` value for a body sent at `now`: one v1 signature per secret,
 * the current one first (two while a rotated secret's grace lasts).
 */
export const signatureHeaderValue = (secrets: readonly string[], body: Body, now: Date): string => {
  const timestamp = Math.floor(now.getTime() / 1000);
  const signatures = secrets.map((secret) => `${SCHEME}=${signatureOf(secret, timestamp, body)}`);
  return [`t=${timestamp}`, ...signatures].join(",");
};

/**
 * How long a rotated secret still signs deliveries beside the new one: the time to deploy the
 * new secret to the backend, which meanwhile checks with either.
 */
export const ROTATION_GRACE_HOURS = 24;

/** The secrets a delivery at `now` is signed with: the current one, and the one it replaced. */
export const signingSecrets = (
  webhook: {
    readonly secret: string;
    readonly previous: { readonly secret: string; readonly until: string } | null;
  },
  now: Date,
): string[] =>
  webhook.previous && Date.parse(webhook.previous.until) > now.getTime()
    ? [webhook.secret, webhook.previous.secret]
    : [webhook.secret];

/** The headers a webhook delivery carries beside its JSON body. */
export const webhookHeaders = (input: {
  readonly secrets: readonly string[];
  readonly body: string;
  readonly sendId: string;
  readonly attempt: number;
  readonly now: Date;
}): Record<string, string> => ({
  "Content-Type": "application/json",
  [SIGNATURE_HEADER]: signatureHeaderValue(input.secrets, input.body, input.now),
  [DELIVERY_HEADER]: input.sendId,
  [ATTEMPT_HEADER]: String(input.attempt),
});

export type Verification =
  | { readonly ok: true; readonly timestamp: number }
  | { readonly ok: false; readonly reason: "malformed" | "outside_tolerance" | "mismatch" };

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** The header's timestamp and its v1 signatures (several while a secret is being rotated). */
const parseHeader = (header: string): { timestamp: number; signatures: string[] } | null => {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === SCHEME && HEX_SHA256.test(value)) signatures.push(value);
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
};

/**
 * Whether a delivery is the service's: a v1 signature of `<t>.<body>` under one of the
 * secrets (the new and the old one while rotating), its time within the tolerance of `now`.
 * The comparison takes the same time wherever the signatures differ.
 */
export const verifySignature = (input: {
  readonly secrets: readonly string[];
  readonly body: Body;
  readonly header: string | null | undefined;
  readonly now: Date;
  readonly toleranceSeconds?: number;
}): Verification => {
  const parsed = input.header ? parseHeader(input.header) : null;
  if (!parsed) return { ok: false, reason: "malformed" };
  const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor(input.now.getTime() / 1000);
  if (Math.abs(nowSeconds - parsed.timestamp) > tolerance) {
    return { ok: false, reason: "outside_tolerance" };
  }
  for (const secret of input.secrets) {
    const expected = Buffer.from(signatureOf(secret, parsed.timestamp, input.body), "hex");
    for (const signature of parsed.signatures) {
      // Both are 32 bytes (the header's were checked as 64 hex digits), as timingSafeEqual needs.
      if (timingSafeEqual(expected, Buffer.from(signature, "hex"))) {
        return { ok: true, timestamp: parsed.timestamp };
      }
    }
  }
  return { ok: false, reason: "mismatch" };
};
