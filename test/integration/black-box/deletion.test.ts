/**
 * Deleting an install's data (the SDKs' deleteUserData) on any target: the request and its
 * retry, what the service takes in afterwards, the export without the install at once, the
 * request completed by the purge, and each app's requests kept to itself.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { ExportRecord } from "../../../src/record/columns.ts";
import { itAll, itNeeds, type Keys, openTarget, type Target } from "../../support/target.ts";

type Deletion = {
  request_id: string;
  service_id: string;
  status: string;
  completed_at: string | null;
};

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

describe("deleting an install's data", () => {
  let target: Target;
  let keys: Keys;
  let otherKeys: Keys;
  const doomed = `doomed-${randomUUID()}`;
  const kept = `kept-${randomUUID()}`;
  let request: Deletion;

  const exportIds = async () => {
    const since = Math.floor(Date.now() / 1000) - 86_400;
    const response = await target.get(
      `/api/v1/export?timestamp=${since}&limit=10000`,
      keys.serverKey,
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: ExportRecord[] }).data.map((r) => r.service_id);
  };

  const sendEvents = (serviceId: string, ids: string[]) =>
    target.post(
      "/v1/events",
      {
        events: ids.map((eventId, i) => ({
          event_id: eventId,
          service_id: serviceId,
          event_type: "LEVEL_START",
          event_time: minutesAgo(60 - i),
        })),
      },
      keys.sdkKey,
    );

  beforeAll(async () => {
    target = await openTarget();
    keys = await target.createApp(target.appId("com.example.deleting"), "android");
    otherKeys = await target.createApp(target.appId("com.example.deleting.other"), "android");
    for (const serviceId of [doomed, kept]) {
      const installed = await target.post(
        "/v1/installs",
        {
          service_id: serviceId,
          os: "android",
          sdk_platform: "kotlin",
          sdk_version: "1.11.0",
          first_open_time: minutesAgo(90),
        },
        keys.sdkKey,
      );
      expect(installed.status).toBe(202);
      const sent = await sendEvents(serviceId, [`${serviceId}-1`, `${serviceId}-2`]);
      expect(((await sent.json()) as { accepted: number }).accepted).toBe(2);
    }
  });

  afterAll(() => target?.dispose());

  itNeeds(["export"], "exports both installs before the request", async () => {
    await target.eventually("both installs are in the export", async () => {
      const ids = await exportIds();
      expect(ids).toContain(doomed);
      expect(ids).toContain(kept);
    });
  });

  itAll(
    "takes the request with 202, answers a retry with the same request, and takes in nothing more of the install",
    async () => {
      const requested = await target.fetch(
        `/v1/installs/${doomed}`,
        { method: "DELETE" },
        keys.sdkKey,
      );
      expect(requested.status).toBe(202);
      request = (await requested.json()) as Deletion;
      expect(request).toMatchObject({ service_id: doomed, status: "pending", completed_at: null });
      const retried = await target.fetch(
        `/v1/installs/${doomed}`,
        { method: "DELETE" },
        keys.sdkKey,
      );
      const retriedId = ((await retried.json()) as Deletion).request_id;
      if (retriedId !== request.request_id) {
        // The purge the request began completed it first: the retry is a request of its own.
        const first = await target.get(`/v1/deletions/${request.request_id}`, keys.serverKey);
        expect(((await first.json()) as Deletion).status).toBe("completed");
      }

      const after = await sendEvents(doomed, [`${doomed}-after`]);
      expect(await after.json()).toMatchObject({
        accepted: 0,
        ignored: [
          {
            index: 0,
            event_id: `${doomed}-after`,
            reason: "install_deleted",
            detail: expect.stringMatching(/deleted/),
          },
        ],
      });
    },
  );

  itNeeds(["export"], "leaves the install out of every export from the request on", async () => {
    const ids = await exportIds();
    expect(ids).not.toContain(doomed);
    expect(ids).toContain(kept);
  });

  itNeeds(["purge"], "completes the request once the purge has run", async () => {
    const done = await target.eventually(
      "the deletion request is completed",
      async () => {
        const response = await target.get(`/v1/deletions/${request.request_id}`, keys.serverKey);
        expect(response.status).toBe(200);
        const status = (await response.json()) as Deletion;
        expect(status.status).toBe("completed");
        return status;
      },
      "purge",
    );
    expect(done.completed_at).toEqual(expect.any(String));
  });

  itAll("keeps each app's requests to itself, and needs the right keys", async () => {
    expect(
      (await target.fetch(`/v1/installs/${kept}`, { method: "DELETE" }, keys.serverKey)).status,
    ).toBe(401);
    const status = `/v1/deletions/${request.request_id}`;
    expect((await target.get(status, otherKeys.serverKey)).status).toBe(404);
    expect((await target.get(status, keys.sdkKey)).status).toBe(401);
    expect((await target.get("/v1/deletions/not-a-request-id", keys.serverKey)).status).toBe(422);
    expect(
      (await target.fetch("/v1/installs/bad%20id", { method: "DELETE" }, keys.sdkKey)).status,
    ).toBe(422);
    // Past the id's 128 characters: the route's own 422, not the gateway's 404.
    const long = await target.fetch(
      `/v1/installs/${"0".repeat(129)}`,
      { method: "DELETE" },
      keys.sdkKey,
    );
    expect(long.status).toBe(422);
    expect(((await long.json()) as { detail: string }).detail).toMatch(/service_id/);
  });
});
