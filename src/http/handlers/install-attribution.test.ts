import { describe, expect, it } from "vitest";
import { storedInstall } from "../../../test/support/installs.ts";
import { installFacts } from "../../attribution/facts.ts";
import { resultOf } from "../../attribution/results.ts";
import { DEFAULT_ATTRIBUTION } from "../../attribution/settings.ts";
import type { App } from "../../ports/apps.ts";
import type { AttributionRecord } from "../../ports/attributions.ts";
import type { DeletionRequest } from "../../ports/deletions.ts";
import { apiEvent, CONTEXT, principal } from "../api-event.test-support.ts";
import { createAttributionHandler } from "./install-attribution.ts";

const APP: App = {
  appId: "com.example.game",
  name: "Game",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};

const pending: AttributionRecord = {
  state: "pending",
  appId: APP.appId,
  serviceId: "device-1",
  facts: installFacts(storedInstall(APP.appId, "device-1"), {
    ip: null,
    receivedAt: new Date("2026-11-01T10:00:01.000Z"),
  }),
  requestedAt: "2026-11-01T10:00:01.000Z",
};

const read = (records: AttributionRecord[], app: App = APP, deletions: DeletionRequest[] = []) => {
  let reads = 0;
  const handler = createAttributionHandler({
    apps: { get: async () => app },
    attributions: {
      get: async () => records[Math.min(reads++, records.length - 1)],
    },
    deletions: { listByInstall: async () => deletions },
    pollIntervalMs: 5,
  });
  return async (waitSeconds: number) => {
    const response = await handler(
      apiEvent({
        authorizer: principal(APP.appId, ["attribution:read"]),
        params: { service_id: "device-1" },
        query: { wait_seconds: String(waitSeconds) },
      }),
      CONTEXT,
    );
    return {
      status: response.statusCode,
      body: JSON.parse(String(response.body)),
      reads,
    };
  };
};

describe("the attribution route", () => {
  it("waits for a pending attribution and answers as soon as it resolves", async () => {
    const resolved: AttributionRecord = {
      state: "resolved",
      appId: APP.appId,
      serviceId: "device-1",
      delivered: true,
      sender: null,
      result: resultOf(
        { kind: "organic" },
        null,
        new Date("2026-11-01T10:00:02.000Z"),
        DEFAULT_ATTRIBUTION,
      ),
    };
    const answer = await read([pending, pending, resolved])(5);
    expect(answer.body).toEqual({ service_match_status: "organic", media_source: "organic" });
    // It stopped reading once resolved.
    expect(answer.reads).toBe(3);
  });

  it("answers a still pending one with an empty map once the wait is over", async () => {
    const answer = await read([pending])(1);
    expect(answer.body).toEqual({});
    // It read again and again while the wait lasted.
    expect(answer.reads).toBeGreaterThan(10);
  });

  it("answers failed and not_configured at once, without waiting", async () => {
    const failed = await read([{ ...pending, state: "failed" }])(10);
    expect(failed.body).toEqual({ service_match_status: "failed" });
    expect(failed.reads).toBe(1);
    const disabled = await read([pending], { ...APP, enabled: false })(10);
    expect(disabled.body).toEqual({ service_match_status: "not_configured" });
    expect(disabled.reads).toBe(1);
  });

  it("knows no install it has no attribution of, nor one whose deletion was asked before its purge", async () => {
    const notFound = {
      error: "Not Found",
      detail:
        "No install device-1 of this app: send POST /v1/installs first (or its data was deleted).",
    };
    const unknown = await read([])(0);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(notFound);
    const deleting = await read([pending], APP, [
      {
        requestId: "r1",
        appId: APP.appId,
        serviceId: "device-1",
        status: "pending",
        requestedAt: "2026-11-02T00:00:00.000Z",
        completedAt: null,
      },
    ])(0);
    expect(deleting.status).toBe(404);
    expect(deleting.body).toEqual(notFound);
  });
});
