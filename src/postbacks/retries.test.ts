import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MINUTE_MS } from "../domain/time.ts";
import {
  type AttemptOutcome,
  attemptLog,
  excerpt,
  judged,
  MASK,
  MAX_RETRY_AFTER_MS,
  maskSecrets,
  maskUrl,
  RETRY_POLICY,
  retryAfterMs,
  skipLog,
  urlCredentialsOf,
  verdictOf,
  WEBHOOK_RETRY_POLICY,
} from "./retries.ts";
import { fillHeaderValue, fillJsonBody, fillUrl } from "./templates.ts";

const ENDED = new Date("2026-11-02T10:00:00.000Z");
const answer = (status: number, body?: string, retryAfter?: string): AttemptOutcome => ({
  kind: "answer",
  status,
  body,
  ...(retryAfter === undefined ? {} : { retryAfter }),
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

  it("never retries a 4xx but 408, 425 and 429, a redirect (not followed) or a send the service refused", () => {
    for (const outcome of [
      answer(400),
      answer(404),
      answer(409),
      answer(301),
      answer(302),
      answer(307),
      answer(100),
      // A status past the 5xx (Node reads any three digits) is no server error.
      answer(600),
      answer(999),
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

  it("finishes any 4xx at once, whatever the attempt, but those asking for it later", () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 499 }), fc.integer({ min: 1, max: 5 }), (s, n) => {
        fc.pre(![408, 425, 429].includes(s));
        expect(verdictOf(answer(s), n, ENDED)).toEqual({ verdict: "failed", final: true });
      }),
    );
  });

  it("tries a 408, a 425 and a 429 again, as a 5xx, until the last attempt", () => {
    const later = new Date(ENDED.getTime() + 15 * MINUTE_MS);
    for (const status of [408, 425, 429]) {
      expect(verdictOf(answer(status), 1, ENDED)).toEqual({
        verdict: "retry",
        final: false,
        retryAt: later,
      });
      expect(verdictOf(answer(status), 5, ENDED)).toEqual({ verdict: "failed", final: true });
    }
  });

  it("waits as long as Retry-After asks when it asks for longer, in seconds or as an HTTP date, at most six hours", () => {
    // A webhook's first retry comes after a minute: a Retry-After may ask for longer.
    const retryAt = (retryAfter: string) => {
      const verdict = verdictOf(answer(429, "", retryAfter), 1, ENDED, WEBHOOK_RETRY_POLICY);
      if (verdict.verdict !== "retry") throw new Error("not retried");
      return verdict.retryAt.getTime() - ENDED.getTime();
    };
    expect(retryAt("120")).toBe(120_000);
    expect(retryAt(new Date(ENDED.getTime() + 300_000).toUTCString())).toBe(300_000);
    // Past a queue message's 15 minutes (reached in steps), up to the service's bound.
    expect(retryAt(new Date(ENDED.getTime() + 3_600_000).toUTCString())).toBe(3_600_000);
    expect(retryAt("86400")).toBe(MAX_RETRY_AFTER_MS);
    expect(MAX_RETRY_AFTER_MS).toBe(6 * 60 * MINUTE_MS);
    // Sooner than the schedule, a date gone by, or no date at all: the schedule's delay, so a
    // backend that says "at once" does not use up its attempts within a minute.
    expect(retryAt("0")).toBe(MINUTE_MS);
    expect(retryAt("1")).toBe(MINUTE_MS);
    expect(retryAt(new Date(ENDED.getTime() - 60_000).toUTCString())).toBe(MINUTE_MS);
    expect(retryAt("soon")).toBe(MINUTE_MS);
    expect(retryAt("2026-11-02T10:05:00Z")).toBe(MINUTE_MS);
    expect(retryAfterMs(undefined, ENDED)).toBeNull();
    expect(retryAfterMs("60", ENDED)).toBe(60_000);
    // Spaces around a value are no part of it; anything but whole seconds or an HTTP date is
    // no value at all, not a number read from its tail or a date read from its middle.
    expect(retryAfterMs(" 60 ", ENDED)).toBe(60_000);
    expect(retryAfterMs("   ", ENDED)).toBeNull();
    for (const junk of ["-5", "1.5", "x60", "60s", "6 0"]) {
      expect(retryAfterMs(junk, ENDED), junk).toBeNull();
    }
    const date = new Date(ENDED.getTime() + 300_000).toUTCString();
    expect(retryAfterMs(date, ENDED)).toBe(300_000);
    // A date gone by asks for no wait at all, never a negative one.
    expect(retryAfterMs(new Date(ENDED.getTime() - 60_000).toUTCString(), ENDED)).toBe(0);
    expect(retryAfterMs(`x ${date}`, ENDED)).toBeNull();
    // An HTTP date is in GMT: one naming another offset is no HTTP date.
    expect(retryAfterMs(`${date}+0200`, ENDED)).toBeNull();
    // A 503's Retry-After is read too; a partner's 15 minutes are longer than the minute asked.
    const busy = verdictOf(answer(503, "", "60"), 2, ENDED);
    expect(busy).toEqual({
      verdict: "retry",
      final: false,
      retryAt: new Date(ENDED.getTime() + 15 * MINUTE_MS),
    });
  });

  it("tries a webhook 10 times over more than a day, each delay longer than the last", () => {
    const times: number[] = [];
    let at = ENDED;
    for (let attempt = 1; ; attempt++) {
      times.push(at.getTime());
      const verdict = verdictOf(answer(503), attempt, at, WEBHOOK_RETRY_POLICY);
      if (verdict.final) break;
      at = verdict.retryAt;
    }
    expect(times).toHaveLength(WEBHOOK_RETRY_POLICY.maxAttempts);
    expect(times).toHaveLength(10);
    const gaps = times.slice(1).map((time, i) => time - (times[i] ?? 0));
    for (const [i, gap] of gaps.entries()) if (i > 0) expect(gap).toBeGreaterThan(gaps[i - 1] ?? 0);
    expect((times.at(-1) ?? 0) - ENDED.getTime()).toBeGreaterThanOrEqual(24 * 60 * MINUTE_MS);
    // A partner's stays AppsFlyer's: 5 attempts, an hour.
    expect(verdictOf(answer(503), 5, ENDED, RETRY_POLICY).verdict).toBe("failed");
  });
});

describe("judged", () => {
  const check = { field: "code", ok: [0], later: [40100, 50000] };

  it("makes a 2xx whose body's code is no taken one a refusal, final unless the code asks for it later", () => {
    const refused = judged(answer(200, '{"code":40105,"message":"bad token"}'), check);
    expect(verdictOf(refused, 1, ENDED)).toEqual({ verdict: "failed", final: true });
    expect(
      attemptLog({
        url: "https://p.example/",
        method: "POST",
        outcome: refused,
        attempt: 1,
        endedAt: ENDED,
        secrets: [],
      }).error,
    ).toBe("answered 200 with code 40105: the partner refused it");
    const limited = judged(answer(200, '{"code":"40100"}'), check);
    expect(verdictOf(limited, 1, ENDED)).toMatchObject({ verdict: "retry", final: false });
    expect(verdictOf(limited, RETRY_POLICY.maxAttempts, ENDED)).toEqual({
      verdict: "failed",
      final: true,
    });
  });

  it("leaves an answer as its status says when the body gives no code, or a taken one, or there is no check", () => {
    for (const body of [
      '{"code":0,"message":"OK"}',
      "OK",
      '{"code":4',
      "[1]",
      '{"message":"x"}',
      '{"code":null}',
    ]) {
      expect(verdictOf(judged(answer(200, body), check), 1, ENDED), body).toEqual({
        verdict: "delivered",
        final: true,
      });
    }
    expect(judged(answer(200, '{"code":1}'), undefined)).toEqual(answer(200, '{"code":1}'));
    // A status that is no 2xx is judged by itself: a 500 naming a taken code is still a 500.
    expect(verdictOf(judged(answer(500, '{"code":0}'), check), 1, ENDED)).toMatchObject({
      verdict: "retry",
    });
    // Nor does a refusing code make a refusal of an answer that is no 2xx: a 503 is tried again,
    // a 199, a 300 or a 404 stays what its status says, whatever code its body names.
    for (const status of [199, 300, 404, 503]) {
      const outcome = answer(status, '{"code":40105}');
      expect(judged(outcome, check), String(status)).toEqual(outcome);
    }
    expect(verdictOf(judged(answer(503, '{"code":40105}'), check), 1, ENDED)).toMatchObject({
      verdict: "retry",
    });
    // The last 2xx is still one.
    expect(judged(answer(299, '{"code":40105}'), check)).toMatchObject({
      refusal: { field: "code", code: "40105", later: false },
    });
  });

  it("reads the field the partner's check names, and no other", () => {
    const byStatus = { field: "status", ok: ["success"], later: [] };
    expect(judged(answer(200, '{"status":"error","code":0}'), byStatus)).toMatchObject({
      refusal: { field: "status", code: "error", later: false },
    });
    expect(judged(answer(200, '{"status":"success","code":40105}'), byStatus).kind).toBe("answer");
    expect(judged(answer(200, '{"status":"success","code":40105}'), byStatus)).not.toHaveProperty(
      "refusal",
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
    // A signed URL's `sig` and an Azure Function's `code`, by their whole names only.
    const azure =
      "https://hook.example.com/invoke?sv=1.0&sig=S3CR3T&code=F00&hmac=AB&zip_code=10115&signal=on";
    expect(maskUrl(azure, [])).toBe(
      `https://hook.example.com/invoke?sv=1.0&sig=${MASK}&code=${MASK}&hmac=${MASK}&zip_code=10115&signal=on`,
    );
  });

  it("masks a credential-named query value up to the fragment, and keeps the fragment and bare keys", () => {
    expect(maskUrl("https://x.example.com/p?token=abc&flag#token=frag", [])).toBe(
      `https://x.example.com/p?token=${MASK}&flag#token=frag`,
    );
    expect(maskUrl("https://x.example.com/p#token=frag", [])).toBe(
      "https://x.example.com/p#token=frag",
    );
    // A key written percent-encoded is read decoded; one that cannot be decoded, as written.
    expect(maskUrl("https://x.example.com/p?api%5Fkey=abc&%E0%A4%A=1&sig=S", [])).toBe(
      `https://x.example.com/p?api%5Fkey=${MASK}&%E0%A4%A=1&sig=${MASK}`,
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

describe("urlCredentialsOf", () => {
  it("names a configured URL's credential segments and credential-named query values, as written and decoded", () => {
    const url =
      "https://hooks.example.com/services/T0123456789ABCDEF/in?app=1&api_key=k%2By+z&sig=S1&link_id=L1234567890abcdefgh#f";
    expect(urlCredentialsOf(url)).toEqual(["T0123456789ABCDEF", "k%2By+z", "k+y z", "S1"]);
  });

  it("reads the query's first pair, and no pair past the fragment", () => {
    expect(urlCredentialsOf("https://pb.example.com/in?token=T1&app=1#sig=S2")).toEqual(["T1"]);
    expect(urlCredentialsOf("https://pb.example.com/in?app&token=T1#x")).toEqual(["T1"]);
    expect(urlCredentialsOf("https://pb.example.com/in?=T0&token=T1")).toEqual(["T1"]);
  });

  it("names nothing of a URL with no credential in it", () => {
    expect(urlCredentialsOf("https://pb.example.com/in?app=1&token=&campaign=summer")).toEqual([]);
    expect(urlCredentialsOf("https://pb.example.com")).toEqual([]);
    expect(urlCredentialsOf("https://api2.example.com/v2/hooks/attribution")).toEqual([]);
    // A short last segment of the owner's own host is a path, not a secret.
    expect(urlCredentialsOf("https://backend.example/v2/prod01")).toEqual([]);
    expect(urlCredentialsOf("https://localhost1234567890ab:8443/in")).toEqual([]);
  });

  it("names the secrets the hook services put in a short last segment, a host or a token of letters alone", () => {
    // Zapier: the hook id is 7 characters; the account before it, digits, stays shown.
    expect(urlCredentialsOf("https://hooks.zapier.com/hooks/catch/2304596/oe7ts8z/")).toEqual([
      "oe7ts8z",
    ]);
    expect(urlCredentialsOf("https://hooks.zapier.com/hooks/catch/2304596/abcdefg")).toEqual([
      "abcdefg",
    ]);
    // Pipedream: the endpoint is the host's first label.
    expect(urlCredentialsOf("https://eo1a2b3c4d5e6f7.m.pipedream.net")).toEqual([
      "eo1a2b3c4d5e6f7",
    ]);
    // Slack: the team and bot ids stay shown; a token that drew no digit is masked all the same.
    expect(
      urlCredentialsOf(
        "https://hooks.slack.com/services/T0AB12CD/B0EF34GH/AbCdEfGhIjKlMnOpQrStUvWx",
      ),
    ).toEqual(["AbCdEfGhIjKlMnOpQrStUvWx"]);
    // Discord: the id, digits alone, stays shown; the token goes.
    expect(
      urlCredentialsOf("https://discord.com/api/webhooks/1234567890/Ab-Cd_Ef12Gh34Ij56Kl78Mn90"),
    ).toEqual(["Ab-Cd_Ef12Gh34Ij56Kl78Mn90"]);
  });

  it("lets an answer echoing the URL be masked whole", () => {
    const url = "https://hooks.example.com/T0123456789ABCDEF?key=a%2Fb";
    const echo = `no route for /T0123456789ABCDEF with key a/b (${url})`;
    const masked = maskSecrets(echo, urlCredentialsOf(url));
    expect(masked).not.toMatch(/T0123456789ABCDEF|a\/b|a%2Fb/);
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
    // A JSON body stays JSON: the escaped form inside the quotes is masked, not the quotes.
    expect(JSON.parse(maskSecrets(body, secrets))).toEqual({ token: MASK, other: MASK });
  });

  it("masks nothing for a secret that is empty", () => {
    expect(maskSecrets("token=abc", ["", "abc"])).toBe(`token=${MASK}`);
    expect(maskSecrets("token=abc", [""])).toBe("token=abc");
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
      reason: null,
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
    expect(log(answer(300)).error).toBe("redirect not followed");
    expect(log(answer(399)).error).toBe("redirect not followed");
    expect(log(answer(400)).error).toBeNull();
    expect(log({ kind: "refused", reason: "resolves to a private address" }).error).toBe(
      "not sent: resolves to a private address",
    );
  });

  it("says why a 408, 425 or 429 is tried again, and when, as its Retry-After asks", () => {
    const log = (outcome: AttemptOutcome, attempt = 1) =>
      attemptLog({ url, method: "GET", outcome, attempt, endedAt: ENDED, secrets: [] });
    expect(log(answer(429, "slow down", "30"))).toMatchObject({
      status: 429,
      verdict: "retry",
      error:
        "answered 429 (too many requests): the partner asks for it later, tried again in 900 s, later than its Retry-After asks",
    });
    expect(
      attemptLog({
        url,
        method: "GET",
        outcome: answer(429, "slow down", "300"),
        attempt: 1,
        endedAt: ENDED,
        secrets: [],
        policy: WEBHOOK_RETRY_POLICY,
      }).error,
    ).toBe(
      "answered 429 (too many requests): the partner asks for it later, tried again in 300 s as its Retry-After asks",
    );
    // A day asked for: six hours, and the log says it is sooner than asked.
    expect(log(answer(429, "", "86400")).error).toBe(
      "answered 429 (too many requests): the partner asks for it later, tried again in 21600 s, sooner than its Retry-After asks (at most 6 hours)",
    );
    expect(log(answer(408)).error).toBe(
      "answered 408 (request timeout): the partner asks for it later",
    );
    // A 5xx's Retry-After is told of too; on the last attempt nothing is tried again.
    expect(log(answer(503, "", "60")).error).toBe(
      "answered 503, tried again in 900 s, later than its Retry-After asks",
    );
    expect(log(answer(503, "", "60"), 5)).toMatchObject({ verdict: "failed", error: null });
    expect(log(answer(503))).toMatchObject({ verdict: "retry", error: null });
    expect(log(answer(425), 5)).toMatchObject({
      verdict: "failed",
      error: "answered 425 (too early): the partner asks for it later",
    });
  });
});

describe("skipLog", () => {
  it("records a skip as final, with its reason and nothing sent", () => {
    expect(skipLog({ attempt: 2, at: ENDED, reason: "no_consent" })).toEqual({
      time: "2026-11-02T10:00:00.000Z",
      url: "",
      method: "",
      status: null,
      answer: null,
      error: null,
      attempt: 2,
      retry: true,
      verdict: "skipped",
      final: true,
      reason: "no_consent",
    });
  });
});
