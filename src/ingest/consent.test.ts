/** `POST /v1/installs/{service_id}/consent` over in-memory ports: what is kept, and when not. */
import { describe, expect, it } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import type { Consent } from "../domain/consent.ts";
import type { App } from "../ports/apps.ts";
import type { DeletionRequest } from "../ports/deletions.ts";
import type { DeviceTracking, Install } from "../ports/installs.ts";
import { createConsentRecorder, INSTALL_NOT_RECORDED } from "./consent.ts";

const APP: App = {
  appId: "com.example.consent",
  name: "Consent",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};
const NOW = new Date("2026-11-30T10:00:00.000Z");
const GAID = "38400000-8cf0-11bd-b23e-10b96e40000d";

const recorder = (options: { apps?: App[]; deleted?: boolean; stored?: boolean } = {}) => {
  const kept: { consent: Consent; tracking: DeviceTracking | undefined }[] = [];
  const record = createConsentRecorder({
    apps: { get: async (appId) => (options.apps ?? [APP]).find((app) => app.appId === appId) },
    installs: {
      update: async (appId, serviceId, { consent, tracking }) => {
        if (options.stored === false || !consent) return undefined;
        kept.push({ consent, tracking });
        const install: Install = { ...storedInstall(appId, serviceId), consent };
        return install;
      },
    },
    deletions: {
      listByInstall: async (appId, serviceId) =>
        options.deleted
          ? [
              {
                requestId: "r1",
                appId,
                serviceId,
                status: "pending",
                requestedAt: NOW.toISOString(),
                completedAt: null,
              } satisfies DeletionRequest,
            ]
          : [],
    },
    now: () => NOW,
  });
  return { record, kept };
};

describe("an install's consent", () => {
  it("is kept as sent, an empty TCF string as none, and answered in the wire's names", async () => {
    const { record, kept } = recorder();
    const answer = await record(APP.appId, "s1", {
      consent: {
        gdpr_applies: true,
        ad_user_data: false,
        ad_personalization: true,
        tcf_string: "",
      },
    });
    expect(kept.map((k) => k.consent)).toEqual([
      {
        gdprApplies: true,
        adUserData: false,
        adPersonalization: true,
        tcfString: null,
        updatedAt: NOW.toISOString(),
      },
    ]);
    expect(answer).toEqual({
      service_id: "s1",
      consent: {
        gdpr_applies: true,
        ad_user_data: false,
        ad_personalization: true,
        tcf_string: null,
        updated_at: NOW.toISOString(),
      },
    });
  });

  it("keeps the device's tracking only when sent, the all-zero id as none", async () => {
    const { record, kept } = recorder();
    await record(APP.appId, "s1", { consent: {} });
    await record(APP.appId, "s1", {
      consent: {},
      device: { maid: "00000000-0000-0000-0000-000000000000", att_status: "denied" },
    });
    await record(APP.appId, "s1", { consent: {}, device: { maid: GAID } });
    expect(kept.map((k) => k.tracking)).toEqual([
      undefined,
      { maid: null, attStatus: "denied" },
      { maid: GAID, attStatus: null },
    ]);
  });

  it("keeps nothing of an install whose data was asked to be deleted", async () => {
    const { record, kept } = recorder({ deleted: true });
    expect(await record(APP.appId, "s1", { consent: { ad_user_data: true } })).toEqual({
      service_id: "s1",
      consent: null,
    });
    expect(kept).toEqual([]);
  });

  it("is refused for an app deleted since its key was checked, and for an install not yet recorded", async () => {
    await expect(
      recorder({ apps: [] }).record(APP.appId, "s1", { consent: {} }),
    ).rejects.toMatchObject({ statusCode: 401 });
    await expect(
      recorder({ stored: false }).record(APP.appId, "s1", { consent: {} }),
    ).rejects.toMatchObject({ statusCode: 409, message: INSTALL_NOT_RECORDED });
  });

  it("names what is wrong with a body", async () => {
    const { record, kept } = recorder();
    await expect(record(APP.appId, "s1", {})).rejects.toMatchObject({
      statusCode: 422,
      message: "consent: is required",
    });
    await expect(record(APP.appId, "s1", { consent: [] })).rejects.toMatchObject({
      message: "consent: must be a JSON object",
    });
    await expect(
      record(APP.appId, "s1", { consent: { gdpr_applies: "yes" } }),
    ).rejects.toMatchObject({ message: "consent.gdpr_applies: must be true, false or null" });
    expect(kept).toEqual([]);
  });
});
