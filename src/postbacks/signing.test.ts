import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ATTEMPT_HEADER,
  DELIVERY_HEADER,
  newWebhookSecret,
  ROTATION_GRACE_HOURS,
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
  signatureHeaderValue,
  signatureOf,
  signingSecrets,
  verifySignature,
  webhookHeaders,
} from "./signing.ts";

const SECRET = "whsec_test_secret_0123456789abcdef";
const BODY = '{"event":"install","service_id":"abc"}';
const SENT = new Date(1_700_000_000_000);

describe("signing a webhook", () => {
  it("is HMAC-SHA256 over `<t>.<body>`, as openssl computes it", () => {
    // printf '1700000000.<body>' | openssl dgst -sha256 -hmac <secret>
    expect(signatureOf(SECRET, 1_700_000_000, BODY)).toBe(
      "0169d393d9f4ff5c30f43d438b58f87374196b787f3bb30a4e1429cfe915cb0c",
    );
    expect(signatureHeaderValue([SECRET], BODY, SENT)).toBe(
      "t=1700000000,v1=0169d393d9f4ff5c30f43d438b58f87374196b787f3bb30a4e1429cfe915cb0c",
    );
  });

  it("sends the signature, the send's id and the attempt", () => {
    const headers = webhookHeaders({
      secrets: [SECRET],
      body: BODY,
      sendId: "snd_x",
      attempt: 2,
      now: SENT,
    });
    expect(headers).toEqual({
      "Content-Type": "application/json",
      [SIGNATURE_HEADER]: signatureHeaderValue([SECRET], BODY, SENT),
      [DELIVERY_HEADER]: "snd_x",
      [ATTEMPT_HEADER]: "2",
    });
  });

  it("signs with the rotated secret too while its grace lasts, the current one first", () => {
    const newer = "whsec_newer_secret_abcdefghijklmnop";
    const until = new Date(SENT.getTime() + ROTATION_GRACE_HOURS * 3_600_000).toISOString();
    const webhook = { secret: newer, previous: { secret: SECRET, until } };
    expect(signingSecrets(webhook, SENT)).toEqual([newer, SECRET]);
    expect(signingSecrets(webhook, new Date(Date.parse(until)))).toEqual([newer]);
    expect(signingSecrets({ secret: newer, previous: null }, SENT)).toEqual([newer]);
    const header = signatureHeaderValue([newer, SECRET], BODY, SENT);
    expect(header).toBe(
      `t=1700000000,v1=${signatureOf(newer, 1_700_000_000, BODY)},v1=${signatureOf(SECRET, 1_700_000_000, BODY)}`,
    );
    // A backend that still checks with the old secret takes it, as one with the new one does.
    for (const secrets of [[SECRET], [newer]]) {
      expect(verifySignature({ secrets, body: BODY, header, now: SENT }).ok).toBe(true);
    }
  });

  it("makes a new secret each time, long enough to sign with", () => {
    const secrets = new Set(Array.from({ length: 20 }, newWebhookSecret));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  });
});

describe("verifying a webhook", () => {
  const header = signatureHeaderValue([SECRET], BODY, SENT);
  const at = (seconds: number) => new Date(SENT.getTime() + seconds * 1000);

  it("accepts what was signed, within five minutes either way", () => {
    for (const seconds of [0, SIGNATURE_TOLERANCE_SECONDS, -SIGNATURE_TOLERANCE_SECONDS]) {
      expect(verifySignature({ secrets: [SECRET], body: BODY, header, now: at(seconds) })).toEqual({
        ok: true,
        timestamp: 1_700_000_000,
      });
    }
  });

  it("refuses a delivery replayed after the tolerance, or dated ahead of it", () => {
    for (const seconds of [SIGNATURE_TOLERANCE_SECONDS + 1, -SIGNATURE_TOLERANCE_SECONDS - 1]) {
      expect(verifySignature({ secrets: [SECRET], body: BODY, header, now: at(seconds) })).toEqual({
        ok: false,
        reason: "outside_tolerance",
      });
    }
  });

  it("refuses another secret, and a header that is not one", () => {
    expect(verifySignature({ secrets: ["whsec_other"], body: BODY, header, now: SENT })).toEqual({
      ok: false,
      reason: "mismatch",
    });
    for (const bad of [
      null,
      "",
      "v1=abc",
      "t=1700000000",
      `t=x,v1=${"0".repeat(64)}`,
      "t=1700000000,v1=12",
      // Digits and hex digits are the whole value: nothing before or after them.
      `t=1700000000x,v1=${signatureOf(SECRET, 1_700_000_000, BODY)}`,
      `t=x1700000000,v1=${signatureOf(SECRET, 1_700_000_000, BODY)}`,
      `t=1700000000,v1=${signatureOf(SECRET, 1_700_000_000, BODY)}00`,
      `t=1700000000,v1=x${signatureOf(SECRET, 1_700_000_000, BODY)}`,
      // The time is the `t` key's alone.
      `tt=1700000000,v1=${signatureOf(SECRET, 1_700_000_000, BODY)}`,
      `=1700000000,v1=${signatureOf(SECRET, 1_700_000_000, BODY)}`,
    ]) {
      expect(verifySignature({ secrets: [SECRET], body: BODY, header: bad, now: SENT })).toEqual({
        ok: false,
        reason: "malformed",
      });
    }
  });

  it("reads a header with spaces around its parts, and passes over keys it does not know", () => {
    const signature = signatureOf(SECRET, 1_700_000_000, BODY);
    for (const spaced of [
      `t=1700000000, v1=${signature}`,
      ` t = 1700000000 ,v1= ${signature} `,
      `v0=abc,t=1700000000,note,v1=${signature}`,
    ]) {
      expect(verifySignature({ secrets: [SECRET], body: BODY, header: spaced, now: SENT })).toEqual(
        {
          ok: true,
          timestamp: 1_700_000_000,
        },
      );
    }
  });

  it("takes a delivery signed with either secret while one is being rotated", () => {
    const newer = "whsec_newer_secret_abcdefghijklmnop";
    const signed = signatureHeaderValue([newer], BODY, SENT);
    expect(
      verifySignature({ secrets: [newer, SECRET], body: BODY, header: signed, now: SENT }).ok,
    ).toBe(true);
    // A header may carry several v1 signatures; one good one is enough.
    const both = `${header},v1=${signatureOf(newer, 1_700_000_000, BODY)}`;
    expect(verifySignature({ secrets: [newer], body: BODY, header: both, now: SENT }).ok).toBe(
      true,
    );
  });

  it("accepts any body under its own signature, and refuses any change to it", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ unit: "grapheme" }),
        fc.string({ minLength: 1, maxLength: 3 }),
        (secret, body, extra) => {
          const signed = signatureHeaderValue([secret], body, SENT);
          expect(verifySignature({ secrets: [secret], body, header: signed, now: SENT }).ok).toBe(
            true,
          );
          const changed = verifySignature({
            secrets: [secret],
            body: `${body}${extra}`,
            header: signed,
            now: SENT,
          });
          expect(changed).toEqual({ ok: false, reason: "mismatch" });
        },
      ),
    );
  });

  it("verifies the bytes received, not a re-encoding of them", () => {
    const bytes = new TextEncoder().encode(BODY);
    expect(verifySignature({ secrets: [SECRET], body: bytes, header, now: SENT }).ok).toBe(true);
    const reformatted = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(verifySignature({ secrets: [SECRET], body: reformatted, header, now: SENT }).ok).toBe(
      false,
    );
  });
});
