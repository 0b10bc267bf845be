/** The session cookie read from a Cookie header, and the CSRF token compared. */
import { describe, expect, it } from "vitest";
import { cookieValue, SESSION_COOKIE, sessionCookie, tokensMatch } from "./sessions.ts";

describe("the session cookie", () => {
  it("is read by its own name among the others a browser sends, spaces around it aside", () => {
    expect(cookieValue(`theme=dark; ${SESSION_COOKIE}=abc`, SESSION_COOKIE)).toBe("abc");
    expect(cookieValue(` ${SESSION_COOKIE} = abc ;theme=dark`, SESSION_COOKIE)).toBe("abc");
    // A cookie whose name only ends like it, and an empty value, are none.
    expect(cookieValue(`x${SESSION_COOKIE}=abc`, SESSION_COOKIE)).toBeUndefined();
    expect(cookieValue(`${SESSION_COOKIE}=`, SESSION_COOKIE)).toBeUndefined();
    expect(cookieValue(undefined, SESSION_COOKIE)).toBeUndefined();
    // The value may hold "=": base64 padding.
    expect(cookieValue(`${SESSION_COOKIE}=ab==`, SESSION_COOKIE)).toBe("ab==");
  });

  it("is set for the whole site, unread by scripts and other sites, Secure where asked", () => {
    expect(sessionCookie("abc", { secure: false, maxAgeSeconds: 60 })).toBe(
      `${SESSION_COOKIE}=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Strict`,
    );
    expect(sessionCookie("", { secure: true, maxAgeSeconds: 0 })).toBe(
      `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure`,
    );
  });
});

describe("the CSRF token", () => {
  it("matches itself only: not another, not one of another length, not none", () => {
    expect(tokensMatch("token-1", "token-1")).toBe(true);
    expect(tokensMatch("token-2", "token-1")).toBe(false);
    expect(tokensMatch("token-10", "token-1")).toBe(false);
    expect(tokensMatch(undefined, "token-1")).toBe(false);
  });
});
