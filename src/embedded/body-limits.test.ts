import { describe, expect, it } from "vitest";
import { MAX_POSTBACK_BYTES } from "../http/handlers/apple-postbacks.ts";
import { SIGN_IN_MAX_BYTES } from "../http/handlers/session.ts";
import { LINK_HOST_ROUTES, ROUTES, routeOf } from "../http/routes.ts";
import { INGEST_LIMITS } from "../ingest/limits.ts";
import { bodyLimitOf } from "./body-limits.ts";
import { MAX_BUFFERED_BODY_BYTES } from "./request-body.ts";

/** Changes whose path names all they act on: a person's password reset, an app granted. */
const BODILESS: ReadonlySet<string> = new Set(["reset-user-password", "grant-user-app"]);

describe("a route's body limit on the embedded gateway", () => {
  it("is none for a route that takes no body, the link host's tap and files among them", () => {
    for (const id of [
      "click",
      "apple-app-site-association",
      "assetlinks",
      "reset-user-password",
      "grant-user-app",
    ] as const) {
      expect(bodyLimitOf(routeOf(id))).toBe(0);
    }
    for (const route of ROUTES.filter((row) => row.method === "GET" || row.method === "DELETE")) {
      expect(bodyLimitOf(route), route.id).toBe(0);
    }
  });

  it("is what the handler reads for a route that takes one", () => {
    expect(bodyLimitOf(routeOf("sign-in"))).toBe(SIGN_IN_MAX_BYTES);
    for (const id of ["events", "installs", "put-costs", "create-app", "test-webhook"] as const) {
      expect(bodyLimitOf(routeOf(id)), id).toBe(INGEST_LIMITS.maxBodyBytes);
    }
    expect(bodyLimitOf(routeOf("apple-postback"))).toBe(MAX_POSTBACK_BYTES);
    for (const route of [...ROUTES, ...LINK_HOST_ROUTES]) {
      if (route.method === "GET" || route.method === "DELETE" || BODILESS.has(route.id)) continue;
      expect(bodyLimitOf(route), route.id).toBeGreaterThan(0);
    }
  });

  it("leaves room in the process's total for many of the largest bodies at once", () => {
    const largest = Math.max(...[...ROUTES, ...LINK_HOST_ROUTES].map(bodyLimitOf));
    expect(MAX_BUFFERED_BODY_BYTES / largest).toBeGreaterThanOrEqual(32);
  });
});
