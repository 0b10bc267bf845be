/**
 * `attribution skadnetwork report`: the window and the postbacks it counts by the rules of
 * `GET /v1/skadnetwork/report` (src/http/handlers/skadnetwork.ts), against the embedded stores
 * of a data folder of its own.
 */
import { describe, expect, it } from "vitest";
import type { StoredApplePostback } from "../../ports/apple-postbacks.ts";
import { addDays, dayOf } from "../../reports/days.ts";
import { storedPostback } from "../../skadnetwork/apple-samples.test-support.ts";
import { withAdminStores } from "../admin-stores.ts";
import { createAppCommand } from "./apps.ts";
import { printedBy, useDataDir } from "./commands.test-support.ts";
import { exportPostbacksCommand, skadnetworkReportCommand } from "./skadnetwork.ts";

const APP = "com.example.skan-report";

const postback = (
  transactionId: string,
  verification: StoredApplePostback["verification"],
): StoredApplePostback =>
  storedPostback({ transactionId, verification, appId: APP, receivedAt: new Date().toISOString() });

describe("attribution skadnetwork report", () => {
  const folder = useDataDir("skadnetwork-report-", async (dataDir) => {
    await createAppCommand({ appId: APP, name: "Skan", platform: "ios", dataDir });
    await withAdminStores(dataDir, async (stores) => {
      const postbacks = stores.applePostbacks();
      await postbacks.add(
        postback("t-production", {
          status: "verified",
          environment: "production",
          keyId: null,
          reason: null,
        }),
      );
      await postbacks.add(
        postback("t-development", {
          status: "verified",
          environment: "development",
          keyId: null,
          reason: null,
        }),
      );
      await postbacks.add(
        postback("t-unverified", {
          status: "unverified",
          environment: null,
          keyId: null,
          reason: "signature",
        }),
      );
    });
  });
  const today = dayOf(new Date());

  const reported = async (options: { from?: string; to?: string; include?: string }) => {
    const lines = await printedBy(() =>
      skadnetworkReportCommand({
        appId: APP,
        from: options.from ?? today,
        to: options.to ?? today,
        ...(options.include === undefined ? {} : { include: options.include }),
        dataDir: folder.dataDir,
      }),
    );
    return JSON.parse(lines.join("\n")) as { postbacks: Record<string, number> };
  };

  it("counts development or unverified postbacks too with --include, as the API's include", async () => {
    const counted = async (include?: string) => (await reported({ include })).postbacks.counted;
    expect(await counted()).toBe(1);
    expect(await counted("development")).toBe(2);
    expect(await counted("unverified")).toBe(2);
    expect(await counted("unverified,development")).toBe(3);
    await expect(counted("production")).rejects.toThrow(
      "--include: must be development, unverified, or both, comma-separated",
    );
  });

  it("refuses a window the API refuses, naming the flags: past tomorrow (UTC), or over 366 days", async () => {
    const tomorrow = addDays(today, 1);
    // 366 days, both ends counted.
    expect((await reported({ from: addDays(today, -364), to: tomorrow })).postbacks.received).toBe(
      3,
    );
    await expect(reported({ from: addDays(today, -365), to: tomorrow })).rejects.toThrow(
      "--to: must end a window of at most 366 days, --from and --to counted",
    );
    await expect(reported({ to: addDays(today, 2) })).rejects.toThrow(
      `--to: must not be after tomorrow (${tomorrow}, UTC)`,
    );
    await expect(reported({ from: "2026-02-30" })).rejects.toThrow(
      "--from: must be a UTC day, YYYY-MM-DD",
    );
    await expect(reported({ from: tomorrow, to: today })).rejects.toThrow(
      "--to: must be on or after --from",
    );
  });

  it("holds skadnetwork export to the API's window of a listing, naming the flags", async () => {
    await expect(
      exportPostbacksCommand({
        appId: APP,
        from: addDays(today, -366),
        to: today,
        output: `${folder.dataDir}/postbacks.csv`,
        dataDir: folder.dataDir,
      }),
    ).rejects.toThrow("--to: must end a window of at most 366 days, --from and --to counted");
  });
});
