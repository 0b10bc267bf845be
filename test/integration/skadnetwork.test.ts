/**
 * Apple's postbacks received over HTTP by the link host of the embedded runtime: the examples
 * of Apple's documentation posted to both endpoints as devices post them (a trailing slash, no
 * credentials), stored once each, attached to the app by its App Store id, a tampered one kept
 * unverified, a body that is no postback refused with nothing stored.
 */
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPasswordCredentials } from "../../src/adapters/dynamodb/password-credentials.ts";
import { addUser } from "../../src/dashboard/accounts.ts";
import { unknownPostbacksQuery } from "../../src/http/handlers/skadnetwork.ts";
import {
  AAK_DEVELOPMENT,
  SKAN_3_WIN,
  SKAN_4_COARSE,
  SKAN_4_FINE,
} from "../../src/skadnetwork/apple-samples.test-support.ts";
import { createSkadnetworkSettings } from "../../src/skadnetwork/settings.ts";
import { signIn } from "../support/dashboard-session.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.skan";
const APP_STORE_ID = "525463029";
/** The app AdAttributionKit's example names (its `advertised-item-identifier`). */
const AAK_APP = "com.example.aak";
const AAK_APP_STORE_ID = "10738027756";
const FAR = { from: new Date(0), to: new Date(Date.now() + 86_400_000) };
/** The UTC day the postbacks are received on, whichever side of midnight a test runs. */
const START_DAY = new Date().toISOString().slice(0, 10);
/** From the day the tests began to the day it is now. */
const daysSoFar = () => {
  const to = new Date().toISOString().slice(0, 10);
  return {
    query: `from=${START_DAY}&to=${to}`,
    from: new Date(`${START_DAY}T00:00:00Z`),
    to: new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000),
  };
};

/** An iOS app with its App Store id, as Apple's postbacks name it; its server key. */
const iosAppWithStoreId = async (
  rt: TestRuntime,
  appId: string,
  appStoreId: string,
): Promise<string> => {
  const { serverKey } = await rt.createApp(appId, "ios");
  await rt.stores.apps.update(appId, (app) => ({ ...app, links: { appStoreId } }));
  return serverKey;
};

describe("Apple's postbacks on the link host", () => {
  let rt: TestRuntime;
  let serverKey = "";
  let aakServerKey = "";

  const post = (folder: string, body: unknown) =>
    fetch(`${rt.linkUrl}/.well-known/${folder}/report-attribution/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  const stored = async (appId: string | null) =>
    (await rt.stores.applePostbacks.listByApp(appId, FAR, { limit: 100 })).postbacks;

  beforeAll(async () => {
    rt = await startTestRuntime();
    serverKey = await iosAppWithStoreId(rt, APP, APP_STORE_ID);
    aakServerKey = await iosAppWithStoreId(rt, AAK_APP, AAK_APP_STORE_ID);
  });

  afterAll(async () => {
    await rt?.dispose();
  });

  it("stores each of Apple's SKAdNetwork examples once, under the app of its App Store id", async () => {
    for (const body of [SKAN_4_FINE, SKAN_4_COARSE, SKAN_3_WIN]) {
      const first = await post("skadnetwork", body);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ stored: "new" });
      // A device's retry of the same postback.
      const again = await post("skadnetwork", body);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ stored: "duplicate" });
    }
    const postbacks = await stored(APP);
    expect(postbacks.map((p) => [p.version, p.transactionId, p.verification.status])).toEqual([
      ["4.0", SKAN_4_FINE["transaction-id"], "verified"],
      ["4.0", SKAN_4_COARSE["transaction-id"], "verified"],
      ["3.0", SKAN_3_WIN["transaction-id"], "verified"],
    ]);
    expect(postbacks[0]).toMatchObject({
      appId: APP,
      conversionValue: 63,
      sourceIdentifier: "5239",
    });
  });

  it("keeps a tampered postback as unverified", async () => {
    const tampered = { ...SKAN_4_FINE, "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e99" };
    expect((await post("skadnetwork", tampered)).status).toBe(200);
    const kept = (await stored(APP)).find((p) => p.transactionId === tampered["transaction-id"]);
    expect(kept?.verification).toMatchObject({
      status: "unverified",
      reason: "Apple's signature does not match the postback's fields",
    });
  });

  it("stores AdAttributionKit's example once, under the app of its advertised item, as a development postback", async () => {
    const first = await post("appattribution", AAK_DEVELOPMENT);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ stored: "new" });
    const again = await post("appattribution", AAK_DEVELOPMENT);
    expect(await again.json()).toEqual({ stored: "duplicate" });
    const kept = await stored(AAK_APP);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      appId: AAK_APP,
      kind: "adattributionkit",
      appStoreId: AAK_APP_STORE_ID,
      transactionId: "85546EB7-FD39-44BC-8990-C98A4AC36A49",
      conversionType: "re-engagement",
      conversionValue: 24,
      verification: { status: "verified", environment: "development" },
    });
  });

  it("keeps a JWS whose payload was changed as unverified", async () => {
    const [header, payload, signature] = AAK_DEVELOPMENT["jws-string"].split(".");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8"));
    const changed = Buffer.from(
      JSON.stringify({ ...claims, "postback-identifier": "85546EB7-FD39-44BC-8990-C98A4AC36A50" }),
    ).toString("base64url");
    const tampered = { ...AAK_DEVELOPMENT, "jws-string": `${header}.${changed}.${signature}` };
    expect(await (await post("appattribution", tampered)).json()).toEqual({ stored: "new" });
    const kept = (await stored(AAK_APP)).find((p) => p.transactionId.endsWith("6A50"));
    expect(kept?.verification).toMatchObject({
      status: "unverified",
      reason: "Apple's signature does not match the JWS",
    });
  });

  it("keeps a postback naming an App Store id no app has apart, under no app", async () => {
    const elsewhere = {
      ...SKAN_4_FINE,
      "app-id": 1111111111,
      "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e77",
    };
    expect(await (await post("skadnetwork", elsewhere)).json()).toEqual({ stored: "new" });
    const [kept] = await stored(null);
    expect(kept).toMatchObject({
      appId: null,
      kind: "skadnetwork",
      appStoreId: "1111111111",
      // The app id is among the signed fields.
      verification: { status: "unverified" },
    });
    // Counted by its App Store id for the service's admins, and for no one else.
    if (!rt.owner) throw new Error("The first start made no owner account");
    const admin = await signIn(rt.url, rt.owner.email, rt.owner.password);
    const days = daysSoFar();
    const unknown = await admin.get(`/v1/skadnetwork/unknown?${days.query}`);
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual({
      app_store_ids: [
        {
          app_store_id: "1111111111",
          postbacks: 1,
          verified: 0,
          development: 0,
          first_received_at: kept?.receivedAt,
          last_received_at: kept?.receivedAt,
          app_id: null,
        },
      ],
      truncated: false,
    });
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      { email: "granted@example.com", password: "a person granted one app", appIds: [APP] },
    );
    const granted = await signIn(rt.url, "granted@example.com", "a person granted one app");
    expect((await granted.get(`/v1/skadnetwork/unknown?${days.query}`)).status).toBe(401);
  });

  it("refuses an App Store id another app has, so that no app takes another's postbacks", async () => {
    if (!rt.owner) throw new Error("The first start made no owner account");
    const admin = await signIn(rt.url, rt.owner.email, rt.owner.password);
    const patch = (appId: string, appStoreId: string) =>
      admin.fetch(`/v1/apps/${appId}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ links: { app_store_id: appStoreId } }),
      });
    const taken = await patch(AAK_APP, APP_STORE_ID);
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({
      error: "Conflict",
      detail: expect.stringContaining(`App Store id ${APP_STORE_ID} is app ${APP}'s already`),
    });
    expect((await rt.stores.apps.get(AAK_APP))?.links?.appStoreId).toBe(AAK_APP_STORE_ID);
    // An app may set its own id again.
    expect((await patch(APP, APP_STORE_ID)).status).toBe(200);
  });

  it("counts the verified ones in the report, their values decoded with the app's schema", async () => {
    const saved = await rt.fetch(
      "/v1/skadnetwork/schema",
      {
        method: "PUT",
        body: JSON.stringify({
          windows: [
            {
              rules: [
                { event: "service_purchase", revenue_usd: { min: 4.99 }, fine: 63, coarse: "high" },
                { event: "service_level_achieved", fine: 20, coarse: "medium" },
              ],
            },
            { rules: [] },
            { rules: [] },
          ],
        }),
      },
      serverKey,
    );
    expect(saved.status).toBe(200);
    const days = daysSoFar();
    // The report reads the lake, as the owner's own queries do.
    await rt.flush();
    const report = async (include = "") => {
      const response = await rt.get(`/v1/skadnetwork/report?${days.query}${include}`, serverKey);
      expect(response.status).toBe(200);
      return response.json();
    };
    // Apple's three examples count; the tampered one is received but not counted.
    expect(await report()).toEqual({
      postbacks: { received: 4, counted: 3, unverified: 1, development: 0, disputed: 0 },
      // The fine 63 and the coarse high each state the purchase rule's 4.99 USD and up; the
      // 2.x redownload's 20, a rule of no revenue, none.
      revenue_usd: { min: 9.98, max: null },
      campaigns: [
        {
          media_source: "com.example",
          ad_network_id: "com.example",
          source_identifier: "39",
          identifier_field: "source-identifier",
          installs: 1,
          redownloads: 0,
          reengagements: 0,
          // Later postbacks are reported by two digits, of every campaign ending in them.
          later_postbacks: 0,
          suffix_installs: 2,
          revenue_usd: { min: 4.99, max: null },
          later_revenue_usd: { min: 0, max: 0 },
        },
        {
          media_source: "com.example",
          ad_network_id: "com.example",
          source_identifier: "5239",
          identifier_field: "source-identifier",
          installs: 1,
          redownloads: 0,
          reengagements: 0,
          later_postbacks: null,
          suffix_installs: null,
          revenue_usd: { min: 4.99, max: null },
          later_revenue_usd: null,
        },
        {
          media_source: "example123.skadnetwork",
          ad_network_id: "example123.skadnetwork",
          source_identifier: "42",
          identifier_field: "campaign-id",
          installs: 0,
          redownloads: 1,
          reengagements: 0,
          later_postbacks: null,
          suffix_installs: null,
          revenue_usd: { min: 0, max: 0 },
          later_revenue_usd: null,
        },
      ],
      values: [
        {
          conversion: "install",
          window: 0,
          fine: 63,
          coarse: null,
          postbacks: 1,
          meaning: ["service_purchase, 4.99+ USD"],
          revenue_usd: { min: 4.99, max: null },
        },
        {
          conversion: "install",
          window: 0,
          fine: 20,
          coarse: null,
          postbacks: 1,
          meaning: ["service_level_achieved"],
          revenue_usd: { min: 0, max: 0 },
        },
        {
          conversion: "install",
          window: 0,
          fine: null,
          coarse: "high",
          postbacks: 1,
          meaning: ["service_purchase, 4.99+ USD"],
          revenue_usd: { min: 4.99, max: null },
        },
      ],
      // 4.0's crowd tiers: the 2.x redownload's fine value is in none of them.
      tiers: { fine: 1, coarse_only: 1, none: 0 },
    });
    const withUnverified = (await report("&include=unverified")) as {
      postbacks: { counted: number };
    };
    expect(withUnverified.postbacks.counted).toBe(4);
    // The query engine's report (DuckDB here, Athena on AWS, one query) is the one the stored
    // postbacks give read one by one, as the command line reads them.
    const fromStore = await createSkadnetworkSettings({
      apps: rt.stores.apps,
      postbacks: rt.stores.applePostbacks,
    }).report(APP, {
      from: days.from,
      to: days.to,
    });
    expect(await report()).toEqual(fromStore);
  });

  it("leaves the development postback out of the report unless asked, then counts it as a re-engagement", async () => {
    const saved = await rt.fetch(
      "/v1/skadnetwork/schema",
      {
        method: "PUT",
        body: JSON.stringify({
          windows: [
            { rules: [{ event: "service_level_achieved", fine: 24, coarse: "medium" }] },
            { rules: [] },
            { rules: [] },
          ],
        }),
      },
      aakServerKey,
    );
    expect(saved.status).toBe(200);
    await rt.flush();
    const days = daysSoFar();
    const report = async (include = "") =>
      (await rt.get(`/v1/skadnetwork/report?${days.query}${include}`, aakServerKey)).json();
    expect(await report()).toEqual({
      postbacks: { received: 2, counted: 0, unverified: 1, development: 1, disputed: 0 },
      // A schema whose rules read no revenue: none is stated.
      revenue_usd: null,
      campaigns: [],
      values: [],
      tiers: { fine: 0, coarse_only: 0, none: 0 },
    });
    expect(await report("&include=development")).toEqual({
      postbacks: { received: 2, counted: 1, unverified: 1, development: 1, disputed: 0 },
      revenue_usd: null,
      campaigns: [
        {
          media_source: "development.adattributionkit",
          ad_network_id: "development.adattributionkit",
          source_identifier: "1234",
          identifier_field: "source-identifier",
          installs: 0,
          redownloads: 0,
          reengagements: 1,
          later_postbacks: null,
          suffix_installs: null,
          revenue_usd: null,
          later_revenue_usd: null,
        },
      ],
      // A re-engagement's value is counted apart, unread by the install's schema, and is no
      // install of the tiers.
      values: [
        {
          conversion: "reengagement",
          window: 0,
          fine: 24,
          coarse: null,
          postbacks: 1,
          meaning: [],
          revenue_usd: null,
        },
      ],
      tiers: { fine: 0, coarse_only: 0, none: 0 },
    });
  });

  it("lists an app's postbacks a page at a time, each once, oldest first", async () => {
    const days = daysSoFar();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await rt.get(
        `/v1/skadnetwork/postbacks?${days.query}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        serverKey,
      );
      expect(response.status).toBe(200);
      const page = (await response.json()) as {
        data: { transaction_id: string }[];
        next_cursor: string | null;
      };
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((postback) => postback.transaction_id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(seen).toEqual((await stored(APP)).map((postback) => postback.transactionId));
    expect(seen).toHaveLength(4);
    expect(pages).toBeGreaterThanOrEqual(2);
    const refused = await rt.get(
      `/v1/skadnetwork/postbacks?${days.query}&cursor=not-a-cursor`,
      serverKey,
    );
    expect(refused.status).toBe(422);
    // Cursors of keys no page of this listing gives: another app's, empty, out of the range.
    const [first] = await stored(APP);
    if (!first) throw new Error("no postback");
    const postbackKey = `${first.kind}#${first.transactionId}#${first.sequenceIndex}`;
    const receivedKey = `${first.receivedAt}#${postbackKey}`;
    for (const forged of [
      { postbackKey, appKey: AAK_APP, receivedKey },
      { postbackKey: "", appKey: APP, receivedKey: "" },
      { postbackKey, appKey: APP, receivedKey: `1999-01-01T00:00:00.000Z#${postbackKey}` },
    ]) {
      const cursor = Buffer.from(JSON.stringify(forged)).toString("base64url");
      const answer = await rt.get(
        `/v1/skadnetwork/postbacks?${days.query}&cursor=${cursor}`,
        serverKey,
      );
      expect(answer.status, JSON.stringify(forged)).toBe(422);
    }
    // This app's cursor shown to another app's key.
    const mine = Buffer.from(JSON.stringify({ postbackKey, appKey: APP, receivedKey })).toString(
      "base64url",
    );
    const theirs = await rt.get(
      `/v1/skadnetwork/postbacks?${days.query}&cursor=${mine}`,
      aakServerKey,
    );
    expect(theirs.status).toBe(422);
    // A window of more than a year, on each route that takes one: a 422 naming `to`.
    for (const route of ["postbacks", "report"]) {
      const long = await rt.get(
        `/v1/skadnetwork/${route}?from=2024-01-01&to=2025-06-30`,
        serverKey,
      );
      expect(long.status, route).toBe(422);
      expect(JSON.stringify(await long.json()), route).toContain("at most 366 days");
    }
    // The unknown postbacks' route (a session's only) takes the same rules.
    expect(unknownPostbacksQuery.safeParse({ from: "2024-01-01", to: "2025-06-30" }).success).toBe(
      false,
    );
  });

  it("puts each new postback of an app in the lake, once, for the owner's own queries", async () => {
    await rt.flush();
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    const rows = await connection.runAndReadAll(
      `SELECT app_id, transaction_id, verification, conversion_value, did_win
         FROM read_parquet('${join(rt.config.dataDir, "lake", "apple_postbacks")}/*/*/*.parquet', hive_partitioning = true)
        WHERE app_id = '${APP}'
        ORDER BY received_at`,
    );
    connection.closeSync();
    duckdb.closeSync();
    // Apple's three examples and the tampered one, each once though sent twice; none of the
    // postback of no app here.
    expect(rows.getRowObjectsJS()).toEqual([
      {
        app_id: APP,
        transaction_id: SKAN_4_FINE["transaction-id"],
        verification: "verified",
        conversion_value: 63,
        did_win: 1,
      },
      {
        app_id: APP,
        transaction_id: SKAN_4_COARSE["transaction-id"],
        verification: "verified",
        conversion_value: null,
        did_win: 1,
      },
      {
        app_id: APP,
        transaction_id: SKAN_3_WIN["transaction-id"],
        verification: "verified",
        conversion_value: 20,
        did_win: 1,
      },
      {
        app_id: APP,
        transaction_id: "6aafb7a5-0170-41b5-bbe4-fe71dedf1e99",
        verification: "unverified",
        conversion_value: 63,
        did_win: 1,
      },
    ]);
  });

  it("refuses a body that is no postback with a 400 and stores nothing", async () => {
    const before = (await stored(APP)).length + (await stored(null)).length;
    for (const [folder, body] of [
      ["skadnetwork", { hello: "world" }],
      ["skadnetwork", "{not json"],
      ["appattribution", SKAN_4_FINE],
      ["skadnetwork", AAK_DEVELOPMENT],
    ] as const) {
      const response = await post(folder, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toMatchObject({ error: "Bad Request" });
    }
    // Each detail reads whole after "The body is".
    for (const [folder, body, detail] of [
      [
        "skadnetwork",
        { ...SKAN_4_FINE, version: "0.9" },
        "of version 0.9, which is no SKAdNetwork version",
      ],
      ["appattribution", { "jws-string": "a.b" }, "a postback whose jws-string is no compact JWS"],
    ] as const) {
      const response = await post(folder, body);
      expect(await response.json()).toEqual({
        error: "Bad Request",
        detail: `The body is ${detail}.`,
      });
    }
    const elsewhere = await post("elsewhere", SKAN_4_FINE);
    expect(elsewhere.status).toBe(404);
    expect((await stored(APP)).length + (await stored(null)).length).toBe(before);
  });
});

describe("a forged copy of Apple's postback, received first", () => {
  let rt: TestRuntime;
  let serverKey = "";

  beforeAll(async () => {
    rt = await startTestRuntime();
    serverKey = await iosAppWithStoreId(rt, APP, APP_STORE_ID);
  });

  afterAll(async () => {
    await rt?.dispose();
  });

  /** A body posted as Apple's device posts it; the answer's JSON. */
  const post = async (body: unknown) =>
    (
      await fetch(`${rt.linkUrl}/.well-known/skadnetwork/report-attribution/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      })
    ).json();

  it("gives way to Apple's signed copy of its transaction, which the report counts once", async () => {
    const to = new Date().toISOString().slice(0, 10);
    /** The report of a window starting `back` days ago: each another question, not a kept answer. */
    const counts = async (back: number) => {
      await rt.flush();
      const from = new Date(Date.parse(`${START_DAY}T00:00:00Z`) - back * 86_400_000);
      const response = await rt.get(
        `/v1/skadnetwork/report?from=${from.toISOString().slice(0, 10)}&to=${to}&include=unverified`,
        serverKey,
      );
      return ((await response.json()) as { postbacks: Record<string, number> }).postbacks;
    };
    const kept = async () =>
      (await rt.stores.applePostbacks.listByApp(APP, FAR, { limit: 100 })).postbacks;
    // A transaction id is no secret: every ad network the postback went to has it.
    const forged = { ...SKAN_3_WIN, "campaign-id": 43 };
    expect(await post(forged)).toEqual({ stored: "new" });
    expect(await kept()).toMatchObject([
      { sourceIdentifier: "43", verification: { status: "unverified" } },
    ]);
    expect(await counts(0)).toEqual({
      received: 1,
      counted: 1,
      unverified: 1,
      development: 0,
      disputed: 0,
    });

    expect(await post(SKAN_3_WIN)).toEqual({ stored: "new" });
    expect(await kept()).toMatchObject([
      { sourceIdentifier: "42", verification: { status: "verified" } },
    ]);
    // Both rows are in the lake; the report reads the transaction once, by its verified row.
    expect(await counts(1)).toEqual({
      received: 1,
      counted: 1,
      unverified: 0,
      development: 0,
      disputed: 0,
    });
    // Nothing takes the place of Apple's copy.
    expect(await post(forged)).toEqual({ stored: "duplicate" });
    expect(await kept()).toMatchObject([{ verification: { status: "verified" } }]);
  });

  it("disputes the values of a signed copy posted first with others: the postback counts with none", async () => {
    const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const days = `from=${START_DAY}&to=${to}`;
    /**
     * The report's values of the two copies (the test before left one of another postback), of
     * a window starting `back` days ago: each another question, not a kept answer.
     */
    const report = async (back: number) => {
      await rt.flush();
      const from = new Date(Date.parse(`${START_DAY}T00:00:00Z`) - back * 86_400_000);
      const window = `from=${from.toISOString().slice(0, 10)}&to=${to}`;
      const response = await rt.get(`/v1/skadnetwork/report?${window}`, serverKey);
      const answer = (await response.json()) as {
        postbacks: Record<string, number>;
        values: { fine: number | null; postbacks: number }[];
        tiers: Record<string, number>;
      };
      return { ...answer, values: answer.values.filter((v) => v.fine === 1 || v.fine === 63) };
    };
    // Apple signs no conversion value: a copy of its postback with another still verifies.
    expect(await post({ ...SKAN_4_FINE, "conversion-value": 1 })).toEqual({ stored: "new" });
    expect(await report(2)).toMatchObject({
      postbacks: { disputed: 0 },
      values: [{ fine: 1, postbacks: 1 }],
      tiers: { fine: 1, coarse_only: 0, none: 0 },
    });

    // Apple's own copy, with the value the app set, disputes it; its retry changes nothing.
    expect(await post(SKAN_4_FINE)).toEqual({ stored: "duplicate" });
    expect(await post(SKAN_4_FINE)).toEqual({ stored: "duplicate" });
    const disputed = await report(3);
    expect(disputed.values).toEqual([]);
    expect(disputed.postbacks).toMatchObject({ disputed: 1 });
    expect(disputed.tiers).toEqual({ fine: 0, coarse_only: 0, none: 1 });
    // The command line's report, read from the stored postbacks, says the same.
    const fromStore = await createSkadnetworkSettings({
      apps: rt.stores.apps,
      postbacks: rt.stores.applePostbacks,
    }).report(APP, { from: new Date(`${START_DAY}T00:00:00Z`), to: FAR.to });
    expect(fromStore.tiers).toEqual(disputed.tiers);
    expect(fromStore.postbacks.disputed).toBe(1);
    expect(fromStore.values.filter((v) => v.fine === 1 || v.fine === 63)).toEqual([]);
    const listed = await rt.get(`/v1/skadnetwork/postbacks?${days}`, serverKey);
    const data = ((await listed.json()) as { data: { transaction_id: string }[] }).data;
    expect(data.filter((p) => p.transaction_id === SKAN_4_FINE["transaction-id"])).toMatchObject([
      { conversion_value: 1, values_disputed: true },
    ]);
  });
});

describe("an App Store id set after its postbacks came", () => {
  let rt: TestRuntime;
  /** An app whose owner sets its App Store id days after launch: Apple's examples' id. */
  const LATE = "com.example.late";
  /** An app that sets AdAttributionKit's example's id: a development postback's. */
  const LATE_TEST = "com.example.late-test";
  let lateKey = "";
  let lateTestKey = "";
  const UNVERIFIED_ID = "6aafb7a5-0170-41b5-bbe4-fe71dedf1e55";

  const post = async (folder: string, body: unknown) =>
    (
      await fetch(`${rt.linkUrl}/.well-known/${folder}/report-attribution/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      })
    ).json();

  beforeAll(async () => {
    rt = await startTestRuntime();
    lateKey = (await rt.createApp(LATE, "ios")).serverKey;
    lateTestKey = (await rt.createApp(LATE_TEST, "ios")).serverKey;
  });

  afterAll(async () => {
    await rt?.dispose();
  });

  it("counts for the app the postbacks Apple's production key verified before its id was set, never an unverified or a development one", async () => {
    const days = daysSoFar();
    const report = async (key: string, include = "", back = 0) => {
      await rt.flush();
      const from = new Date(days.from.getTime() - back * 86_400_000).toISOString().slice(0, 10);
      const to = new Date(days.to.getTime() - 86_400_000).toISOString().slice(0, 10);
      const response = await rt.get(`/v1/skadnetwork/report?from=${from}&to=${to}${include}`, key);
      expect(response.status).toBe(200);
      return (await response.json()) as {
        postbacks: Record<string, number>;
        campaigns: { source_identifier: string; installs: number }[];
      };
    };
    // Before the ids are set: Apple's signed postback, a copy of it changed (unverified) and a
    // test's (development), each naming an id no app has.
    expect(await post("skadnetwork", SKAN_4_FINE)).toEqual({ stored: "new" });
    expect(await post("skadnetwork", { ...SKAN_4_FINE, "transaction-id": UNVERIFIED_ID })).toEqual({
      stored: "new",
    });
    expect(await post("appattribution", AAK_DEVELOPMENT)).toEqual({ stored: "new" });
    expect(
      (await rt.stores.applePostbacks.listByApp(null, FAR, { limit: 10 })).postbacks,
    ).toHaveLength(3);
    expect((await report(lateKey)).postbacks.received).toBe(0);

    if (!rt.owner) throw new Error("The first start made no owner account");
    const admin = await signIn(rt.url, rt.owner.email, rt.owner.password);
    const setId = async (appId: string, appStoreId: string) => {
      const response = await admin.fetch(`/v1/apps/${appId}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ links: { app_store_id: appStoreId } }),
      });
      expect(response.status).toBe(200);
    };
    await setId(LATE, APP_STORE_ID);
    await setId(LATE_TEST, AAK_APP_STORE_ID);

    // Apple's signed postback is the app's now; the unverified copy is not, even when asked for.
    const counted = await report(lateKey, "&include=unverified,development");
    expect(counted.postbacks).toEqual({
      received: 1,
      counted: 1,
      unverified: 0,
      development: 0,
      disputed: 0,
    });
    expect(counted.campaigns).toContainEqual(
      expect.objectContaining({ source_identifier: "5239", installs: 1 }),
    );
    // The command line's report, read from the stored postbacks, says the same.
    const fromStore = await createSkadnetworkSettings({
      apps: rt.stores.apps,
      postbacks: rt.stores.applePostbacks,
    }).report(LATE, { from: days.from, to: days.to }, { development: true, unverified: true });
    expect(fromStore).toEqual(counted);
    // A test's postback is not the app's whose id it names: anyone makes one for any id.
    expect((await report(lateTestKey, "&include=development,unverified")).postbacks).toMatchObject({
      received: 0,
      development: 0,
    });

    // Apple's next postback, received once the id is set: the listing pages through both.
    expect(await post("skadnetwork", SKAN_4_COARSE)).toEqual({ stored: "new" });
    const listed: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await rt.get(
        `/v1/skadnetwork/postbacks?${days.query}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        lateKey,
      );
      expect(response.status).toBe(200);
      const page = (await response.json()) as {
        data: { transaction_id: string; counted: boolean }[];
        next_cursor: string | null;
      };
      listed.push(...page.data.map((postback) => postback.transaction_id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(listed.sort()).toEqual(
      [SKAN_4_FINE["transaction-id"], SKAN_4_COARSE["transaction-id"]].sort(),
    );
    // A window a day longer: another question, not the answer kept for the one before.
    expect((await report(lateKey, "", 1)).postbacks).toMatchObject({ received: 2, counted: 2 });
    const testListed = await rt.get(`/v1/skadnetwork/postbacks?${days.query}`, lateTestKey);
    expect(((await testListed.json()) as { data: unknown[] }).data).toEqual([]);

    // For the service's admins, an id set now keeps only what stays no app's.
    const unknown = await admin.get(`/v1/skadnetwork/unknown?${days.query}`);
    expect(((await unknown.json()) as { app_store_ids: unknown[] }).app_store_ids).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          app_store_id: APP_STORE_ID,
          postbacks: 1,
          verified: 0,
          development: 0,
          app_id: LATE,
        }),
        expect.objectContaining({
          app_store_id: AAK_APP_STORE_ID,
          postbacks: 1,
          verified: 0,
          development: 1,
          app_id: LATE_TEST,
        }),
      ]),
    );
  });
});
