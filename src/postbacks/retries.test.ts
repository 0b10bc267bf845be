import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MINUTE_MS } from "../domain/time.ts";
import {
  type AttemptOutcome,
  attemptLog,
  excerpt,
  MASK,
  maskSecrets,
  maskUrl,
  RETRY_POLICY,
  verdictOf,
} from "./retries.ts";
import { fillHeaderValue, fillJsonBody, fillUrl } from "./templates.ts";

const ENDED = new Date("2026-11-02T10:00:00.000Z");
const answer = (status: number, body?: string): AttemptOutcome => ({
  kind: "answer",
  status,
  body,
});

describe("verdictOf", () => {
  it("is delivered on any 2xx", () => {
    for (const status of [200, 201, 202, 204, 299]) {
      expect(verdictOf(answer(status), 1, ENDED)).toEqual({ verdict: "delivered", final: true });
    }
  });

  it("tries a 5xx, a time-out and a connection error again 15 minutes later", () => {
    const later = new Date(ENDED.getTime() + 15 * MINUTE_MS);
    for (const outcome of [
      answer(500),
      answer(503),
      { kind: "timeout" } as const,
      { kind: "connection", code: "ECONNREFUSED" } as const,
      { kind: "connection", code: "ECONNRESET" } as const,
    ]) {
      expect(verdictOf(outcome, 1, ENDED)).toEqual({
        verdict: "retry",
        final: false,
        retryAt: later,
      });
    }
  });

  it("gives up after the fifth attempt", () => {
    expect(RETRY_POLICY.maxAttempts).toBe(5);
    expect(verdictOf(answer(503), 4, ENDED).verdict).toBe("retry");
    expect(verdictOf(answer(503), 5, ENDED)).toEqual({ verdict: "failed", final: true });
  });

  it("never retries a 4xx, a redirect (not followed) or a send the service refused", () => {
    for (const outcome of [
      answer(400),
      answer(404),
      answer(429),
      answer(301),
      answer(302),
      answer(307),
      answer(100),
      { kind: "refused", reason: "resolves to a private address" } as const,
    ]) {
      expect(verdictOf(outcome, 1, ENDED)).toEqual({ verdict: "failed", final: true });
    }
  });

  it("makes 5 attempts, 15 minutes apart, of a send its partner always fails with a 5xx", () => {
    fc.assert(
      fc.property(fc.integer({ min: 500, max: 599 }), (status) => {
        const times: Date[] = [];
        let at = ENDED;
        let attempt = 1;
        for (;;) {
          times.push(at);
          const verdict = verdictOf(answer(status), attempt, at);
          if (verdict.final) break;
          at = verdict.retryAt;
          attempt += 1;
        }
        expect(times).toHaveLength(5);
        const gaps = times.slice(1).map((time, i) => time.getTime() - (times[i]?.getTime() ?? 0));
        expect(gaps).toEqual([15, 15, 15, 15].map((m) => m * MINUTE_MS));
      }),
    );
  });

  it("finishes any 4xx at once, whatever the attempt", () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 499 }), fc.integer({ min: 1, max: 5 }), (s, n) => {
        expect(verdictOf(answer(s), n, ENDED)).toEqual({ verdict: "failed", final: true });
      }),
    );
  });
});

describe("maskUrl", () => {
  it("masks the advertiser's secret values wherever they are, in clear or URL-encoded", () => {
    const secrets = ["s3cr3t/+=", "tok en"];
    const url =
      "https://pb.example.com/v1/s3cr3t%2F%2B%3D/x?app=1&k=tok%20en&other=s3cr3t/+=&keep=yes";
    expect(maskUrl(url, secrets)).toBe(
      `https://pb.example.com/v1/${MASK}/x?app=1&k=${MASK}&other=${MASK}&keep=yes`,
    );
  });

  it("masks the value of any query key named like a credential", () => {
    const url =
      "https://x.example.com/p?dev_token=abc&access_token=def&api_key=ghi&Signature=jkl&link_id=L1&token=";
    expect(maskUrl(url, [])).toBe(
      `https://x.example.com/p?dev_token=${MASK}&access_token=${MASK}&api_key=${MASK}&Signature=${MASK}&link_id=L1&token=`,
    );
  });

  it("masks a secret whose raw form begins its encoded one", () => {
    const url = `https://x.example.com/p?a=1&v=${encodeURIComponent("A'A%")}&b=2`;
    expect(maskUrl(url, ["A'A%"])).toBe(`https://x.example.com/p?a=1&v=${MASK}&b=2`);
  });

  it("masks a secret holding ! ' ( ) * as a template fills it", () => {
    const secret = "s3cr3t!(x)*'";
    const url = fillUrl("https://x.example.com/p?k={partner.pw}&id=1", (name) =>
      name === "partner.pw" ? secret : "",
    );
    expect(url).not.toContain(encodeURIComponent(secret));
    expect(maskUrl(url, [secret])).toBe(`https://x.example.com/p?k=${MASK}&id=1`);
  });

  it("leaves no trace of any secret put in a query value, as a template or encodeURIComponent writes it", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 4 }), fc.boolean(), (secret, filled) => {
        // A secret that is also a piece of the rest of the URL, or of the mask, would be masked
        // there too: right, but not the URL this expects.
        fc.pre(
          !`https://x.example.com/p?a=1&v=${MASK}&b=2`.includes(secret) && !secret.includes("*"),
        );
        const url = filled
          ? fillUrl("https://x.example.com/p?a=1&v={partner.s}&b=2", () => secret)
          : `https://x.example.com/p?a=1&v=${encodeURIComponent(secret)}&b=2`;
        const masked = maskUrl(url, [secret]);
        expect(masked).toBe(`https://x.example.com/p?a=1&v=${MASK}&b=2`);
      }),
    );
  });
});

describe("maskSecrets", () => {
  it("masks a secret in every form a template writes it: a URL's, a header's, a JSON body's", () => {
    // A pasted token with a trailing newline: a header carries it without the newline.
    const token = "tk_live_ABCDEF123456\n";
    const quoted = 'se"cr\\et';
    const secrets = [token, quoted];
    const header = fillHeaderValue("Bearer {partner.token}", () => token);
    const body = fillJsonBody('{"token":"{partner.token}","other":"{partner.quoted}"}', (name) =>
      name === "partner.token" ? token : quoted,
    );
    const url = fillUrl("https://a.example/p?t={partner.token}", () => token);
    for (const text of [header, body, url]) {
      const masked = maskSecrets(text, secrets);
      expect(masked, text).toContain("***");
      expect(masked, text).not.toContain("tk_live_ABCDEF123456");
      expect(masked, text).not.toContain("cr");
    }
  });
});

describe("excerpt", () => {
  it("keeps a short answer whole and cuts a long one to 1 KiB", () => {
    expect(excerpt("short")).toBe("short");
    expect(Buffer.byteLength(excerpt("x".repeat(5000)))).toBe(1024);
  });

  it("never cuts a character in half", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 300, maxLength: 900 }), (text) => {
        const cut = excerpt(text, 1024);
        expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(1024);
        // Its bytes are the text's first bytes (a half character would not re-encode to them),
        // as many as fit: at most a 4-byte character's 3 bytes short.
        const encoded = Buffer.from(text);
        const bytes = Buffer.from(cut);
        expect(bytes.equals(encoded.subarray(0, bytes.length))).toBe(true);
        expect(bytes.length).toBeGreaterThanOrEqual(Math.min(encoded.length, 1024 - 3));
      }),
    );
  });
});

describe("attemptLog", () => {
  const url = "https://pb.example.com/install?dev_token=SECRET123&click_id=a%20b";

  it("records each attempt with its URL masked, marking retries", () => {
    const first = attemptLog({
      url,
      method: "POST",
      outcome: answer(503, "busy"),
      attempt: 1,
      endedAt: ENDED,
      secrets: ["SECRET123"],
    });
    expect(first).toEqual({
      time: "2026-11-02T10:00:00.000Z",
      url: `https://pb.example.com/install?dev_token=${MASK}&click_id=a%20b`,
      method: "POST",
      status: 503,
      answer: "busy",
      error: null,
      attempt: 1,
      retry: false,
      verdict: "retry",
      final: false,
    });
    const second = attemptLog({
      url,
      method: "POST",
      outcome: answer(200, "{}"),
      attempt: 2,
      endedAt: ENDED,
      secrets: ["SECRET123"],
    });
    expect(second).toMatchObject({ retry: true, verdict: "delivered", final: true, status: 200 });
  });

  it("keeps 1 KiB of the answer, with secrets the partner echoed masked", () => {
    const echoed = `error: bad key SECRET123 ${"x".repeat(4000)}`;
    const log = attemptLog({
      url,
      method: "GET",
      outcome: answer(400, echoed),
      attempt: 1,
      endedAt: ENDED,
      secrets: ["SECRET123"],
    });
    expect(log.answer?.startsWith(`error: bad key ${MASK} x`)).toBe(true);
    expect(Buffer.byteLength(log.answer ?? "")).toBe(1024);
    expect(log).toMatchObject({ verdict: "failed", final: true });
  });

  it("says why there was no answer", () => {
    const log = (outcome: AttemptOutcome) =>
      attemptLog({ url, method: "GET", outcome, attempt: 5, endedAt: ENDED, secrets: [] });
    expect(log({ kind: "timeout" })).toMatchObject({
      status: null,
      error: "no answer within 10 s",
      final: true,
    });
    expect(log({ kind: "connection", code: "ECONNREFUSED", message: "refused" }).error).toBe(
      "ECONNREFUSED: refused",
    );
    expect(log(answer(302)).error).toBe("redirect not followed");
    expect(log({ kind: "refused", reason: "resolves to a private address" }).error).toBe(
      "not sent: resolves to a private address",
    );
  });
});
