/**
 * Values past what the stores and the lake hold, each answered with the caller's 4xx and never
 * a 500: numbers DynamoDB cannot keep, days the rates cannot read, integers past the lake's
 * columns, names past a key's bytes, inherited names as versions, and
 * half a surrogate pair, which once accepted would stop the lake's delivery of its table for
 * good. After them all, a good cost row and a good postback still reach the lake.
 */
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SKAN_4_FINE } from "../../src/skadnetwork/apple-samples.test-support.ts";
import { androidInstallRequest } from "../support/installs.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.hostile";
const APP_STORE_ID = String(SKAN_4_FINE["app-id"]);

describe("values past what the stores hold", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };

  const today = () => new Date().toISOString().slice(0, 10);
  const costRow = (overrides: Record<string, unknown>) => ({
    day: today(),
    media_source: "meta_ads",
    campaign_id: "123",
    amount: 10,
    currency: "USD",
    ...overrides,
  });
  const postCosts = (rows: unknown[]) => rt.post("/v1/costs", { rows }, keys.serverKey);
  const postApple = (body: unknown) =>
    fetch(`${rt.linkUrl}/.well-known/skadnetwork/report-attribution/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const lakeRows = async (table: string, columns: string) => {
    await rt.flush();
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT ${columns} FROM read_parquet('${join(rt.config.dataDir, "lake", table)}/*/*/*.parquet', hive_partitioning = true) WHERE app_id = '${APP}'`,
      );
      return reader.getRowObjectsJS();
    } finally {
      connection.closeSync();
      duckdb.closeSync();
    }
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    keys = await rt.createApp(APP, "ios");
    await rt.stores.apps.update(APP, (app) => ({ ...app, links: { appStoreId: APP_STORE_ID } }));
  });

  afterAll(async () => {
    await rt?.dispose();
  });

  it("refuses a price or a conversion value rule of a magnitude the stores cannot keep", async () => {
    for (const cost_value of [5e-324, 1e-9]) {
      const link = await rt.post(
        "/v1/links",
        { media_source: "net", cost_model: "CPC", cost_value, cost_currency: "EUR" },
        keys.serverKey,
      );
      expect(link.status, String(cost_value)).toBe(422);
      expect(await link.json()).toMatchObject({ detail: expect.stringMatching(/^cost_value: /) });
    }
    const rule = (overrides: Record<string, unknown>) => ({
      windows: [
        { rules: [{ event: "service_purchase", fine: 1, coarse: "low", ...overrides }] },
        { rules: [] },
        { rules: [] },
      ],
    });
    const RULE = "body.windows[0].rules[0]";
    for (const [body, field] of [
      [rule({ parameter: { name: "level", at_least: 1e21 } }), `${RULE}.parameter.at_least`],
      [rule({ parameter: { name: "level", at_least: 5e-324 } }), `${RULE}.parameter.at_least`],
      [rule({ revenue_usd: { min: 5e-324 } }), `${RULE}.revenue_usd.min`],
    ] as const) {
      const saved = await rt.fetch(
        "/v1/skadnetwork/schema",
        { method: "PUT", body: JSON.stringify(body) },
        keys.serverKey,
      );
      expect(saved.status, JSON.stringify(body)).toBe(422);
      expect(((await saved.json()) as { detail: string }).detail).toMatch(
        new RegExp(`^${field.replace(/[.[\]]/g, "\\$&")}: must be 0 or of a magnitude`),
      );
    }
  });

  it("refuses cost rows of an unreadable day, counts past the lake's integers, or half a surrogate pair, and takes long names", async () => {
    for (const [row, refusal] of [
      [costRow({ day: "0000-01-01" }), "body.rows[0].day: must be within 90 days"],
      [
        costRow({ impressions: 2_147_483_648 }),
        "body.rows[0].impressions: must be at most 2147483647",
      ],
      [
        costRow({ clicks: Number.MAX_SAFE_INTEGER }),
        "body.rows[0].clicks: must be at most 2147483647",
      ],
      [costRow({ media_source: "x\udc00" }), "body.rows[0].media_source: must be Unicode text"],
      [costRow({ campaign_name: "\ud800" }), "body.rows[0].campaign_name: must be Unicode text"],
    ] as const) {
      const answer = await postCosts([row]);
      expect(answer.status, JSON.stringify(row)).toBe(422);
      expect(
        ((await answer.json()) as { detail: string }).detail.startsWith(refusal),
        refusal,
      ).toBe(true);
    }
    // Four names of 200 characters of four bytes each: more than a key holds, kept all the same.
    const long = "😀".repeat(100);
    const taken = await postCosts([
      costRow({ media_source: long, campaign_id: long, adset_id: long, ad_id: long }),
    ]);
    expect(taken.status).toBe(200);
    expect(await taken.json()).toEqual({ accepted: 1, replaced: 0, warnings: [] });
  });

  it("refuses an Apple postback of half a surrogate pair, an inherited version or a fidelity past its column", async () => {
    for (const [body, refusal] of [
      [{ ...SKAN_4_FINE, "transaction-id": "y\udc00" }, "a field holds a lone surrogate"],
      [{ ...SKAN_4_FINE, version: "toString" }, "version toString, which is no SKAdNetwork"],
      [{ ...SKAN_4_FINE, version: "valueOf" }, "version valueOf, which is no SKAdNetwork"],
      [{ ...SKAN_4_FINE, "fidelity-type": 2_147_483_648 }, "postback: fidelity-type"],
    ] as const) {
      const answer = await postApple(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(((await answer.json()) as { detail: string }).detail, refusal).toContain(refusal);
    }
  });

  it("refuses an install whose sent_at puts its first open before 1970", async () => {
    const answer = await rt.post(
      "/v1/installs",
      androidInstallRequest("far-ahead", { sent_at: "9999-12-31T23:59:59Z" }),
      keys.sdkKey,
    );
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({ detail: expect.stringMatching(/^sent_at: /) });
  });

  it("still delivers a good cost row and a good postback to the lake after them all", async () => {
    expect((await postCosts([costRow({ campaign_id: "after" })])).status).toBe(200);
    expect((await postApple(SKAN_4_FINE)).status).toBe(200);
    expect(await lakeRows("costs", "campaign_id")).toContainEqual({ campaign_id: "after" });
    expect(await lakeRows("apple_postbacks", "transaction_id")).toEqual([
      { transaction_id: SKAN_4_FINE["transaction-id"] },
    ]);
  });
});
