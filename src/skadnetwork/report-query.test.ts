import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApplePostbackGroup, StoredApplePostback } from "../ports/apple-postbacks.ts";
import { AAK_DEVELOPMENT, SKAN_3_WIN, SKAN_4_FINE } from "./apple-samples.test-support.ts";
import { createPostbackTable } from "./postback-table.test-support.ts";
import { readAdAttributionKitPostback, readSkadnetworkPostback } from "./postbacks.ts";
import { applePostbackRow } from "./receive.ts";
import { groupsOf } from "./report.ts";
import { applePostbackGroupOf, buildSkadnetworkQuery, skadnetworkDaysOf } from "./report-query.ts";

const APP = "com.example.game";

type AppPostback = StoredApplePostback & { readonly appId: string };

const stored = (
  read: ReturnType<typeof readSkadnetworkPostback>,
  receivedAt: string,
): AppPostback => {
  if (!read.ok) throw new Error(read.problem);
  return { ...read.postback, appId: APP, receivedAt, valuesDisputed: false };
};

describe("the SKAdNetwork report's query", () => {
  let duckdb: DuckDBInstance;
  let table = 0;
  beforeAll(async () => {
    duckdb = await DuckDBInstance.create(":memory:");
  });
  afterAll(() => duckdb.closeSync());

  /** The lake's rows of these postbacks as a table (each in its day's partition); its name. */
  const lakeOf = async (postbacks: readonly AppPostback[]): Promise<string> => {
    const name = `apple_postbacks_${++table}`;
    const connection = await duckdb.connect();
    try {
      await createPostbackTable(connection, name, postbacks.map(applePostbackRow));
    } finally {
      connection.closeSync();
    }
    return name;
  };

  const groups = async (source: string, from: string, to: string, now = "2026-11-20") => {
    const connection = await duckdb.connect();
    try {
      const query = buildSkadnetworkQuery({
        dialect: "duckdb",
        appId: APP,
        from: new Date(`${from}T00:00:00Z`),
        to: new Date(`${to}T00:00:00Z`),
        source,
        now: new Date(`${now}T00:00:00Z`),
      });
      return (await connection.runAndReadAll(query)).getRowObjectsJS().map(applePostbackGroupOf);
    } finally {
      connection.closeSync();
    }
  };
  const total = (found: readonly ApplePostbackGroup[]) =>
    found.reduce((sum, group) => sum + group.postbacks, 0);

  it("counts a device's retry written again on a later day in one day's window only", async () => {
    // The first try's row was written, its item not: the device tried again two days later.
    const source = await lakeOf([
      stored(readSkadnetworkPostback(SKAN_4_FINE), "2026-11-01T23:59:00.000Z"),
      stored(readSkadnetworkPostback(SKAN_4_FINE), "2026-11-03T08:00:00.000Z"),
    ]);
    const day1 = total(await groups(source, "2026-11-01", "2026-11-02"));
    const day3 = total(await groups(source, "2026-11-03", "2026-11-04"));
    const both = total(await groups(source, "2026-11-01", "2026-11-04"));
    expect(both).toBe(1);
    expect(day1 + day3).toBe(both);
    // The day of the try whose item the table kept, as the command line's report reads it.
    expect(day3).toBe(1);
  });

  it("counts an unverified copy and Apple's signed one received days later once, whatever the windows", async () => {
    // A transaction id is no secret: a forged copy may come before the device's own.
    const source = await lakeOf([
      stored(
        readSkadnetworkPostback({ ...SKAN_3_WIN, "campaign-id": 43 }),
        "2026-11-01T10:00:00.000Z",
      ),
      stored(readSkadnetworkPostback(SKAN_3_WIN), "2026-11-04T10:00:00.000Z"),
    ]);
    const day1 = await groups(source, "2026-11-01", "2026-11-02");
    const day4 = await groups(source, "2026-11-04", "2026-11-05");
    expect(total(day1)).toBe(0);
    expect(day4).toMatchObject([
      { sourceIdentifier: "42", verification: { status: "verified" }, postbacks: 1 },
    ]);
    expect(total(await groups(source, "2026-11-01", "2026-11-05"))).toBe(1);
  });

  it("counts a transaction's later windows beside its first, each window's copies once", async () => {
    // Apple does not say whether a later window's postback has a transaction id of its own.
    const window = (sequenceIndex: number, receivedAt: string) => ({
      ...stored(readSkadnetworkPostback(SKAN_4_FINE), receivedAt),
      sequenceIndex,
    });
    const source = await lakeOf([
      window(0, "2026-11-03T10:00:00.000Z"),
      window(1, "2026-11-09T10:00:00.000Z"),
      window(1, "2026-11-10T10:00:00.000Z"),
      window(2, "2026-11-30T10:00:00.000Z"),
    ]);
    const found = await groups(source, "2026-11-01", "2026-12-01", "2026-12-01");
    expect(
      found
        .map((group) => [group.sequenceIndex, group.postbacks])
        .sort(([a = 0], [b = 0]) => a - b),
    ).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
  });

  it("counts a postback whose signed copies carry other values with none, and an unsigned copy's values do not dispute", async () => {
    const edited = { ...SKAN_4_FINE, "conversion-value": 1 };
    const source = await lakeOf([
      stored(readSkadnetworkPostback(edited), "2026-11-01T10:00:00.000Z"),
      stored(readSkadnetworkPostback(SKAN_4_FINE), "2026-11-01T11:00:00.000Z"),
      // Another postback: an unverified copy first, then Apple's, whose values stand.
      stored(
        readSkadnetworkPostback({ ...SKAN_3_WIN, "campaign-id": 43, "conversion-value": 5 }),
        "2026-11-01T12:00:00.000Z",
      ),
      stored(readSkadnetworkPostback(SKAN_3_WIN), "2026-11-01T13:00:00.000Z"),
    ]);
    const found = await groups(source, "2026-11-01", "2026-11-02");
    expect(total(found)).toBe(2);
    expect(found.find((group) => group.sourceIdentifier === "5239")).toMatchObject({
      conversionValue: null,
      coarseValue: null,
      postbacks: 1,
    });
    expect(found.find((group) => group.sourceIdentifier === "42")).toMatchObject({
      conversionValue: SKAN_3_WIN["conversion-value"],
    });
  });

  it("counts a copy signed for production over a test's, and neither disputes the other", async () => {
    const production = stored(readSkadnetworkPostback(SKAN_4_FINE), "2026-11-01T11:00:00.000Z");
    // A test's copy of the same transaction with other values, received first and last.
    const test = (receivedAt: string): AppPostback => ({
      ...production,
      conversionValue: 1,
      verification: { ...production.verification, environment: "development" },
      receivedAt,
    });
    const source = await lakeOf([
      test("2026-11-01T10:00:00.000Z"),
      production,
      test("2026-11-01T12:00:00.000Z"),
    ]);
    expect(await groups(source, "2026-11-01", "2026-11-02")).toEqual([
      expect.objectContaining({
        conversionValue: SKAN_4_FINE["conversion-value"],
        verification: { status: "verified", environment: "production" },
        valuesDisputed: false,
        postbacks: 1,
      }),
    ]);
  });

  it("leaves out an unverified postback once the postbacks table has forgotten it, as the CLI's report does", async () => {
    const source = await lakeOf([
      stored(
        readSkadnetworkPostback({ ...SKAN_3_WIN, "campaign-id": 43 }),
        "2026-11-01T10:00:00.000Z",
      ),
      stored(readSkadnetworkPostback(SKAN_4_FINE), "2026-11-01T11:00:00.000Z"),
    ]);
    const within = await groups(source, "2026-11-01", "2026-11-02", "2026-11-30");
    expect(within.map((group) => group.verification.status).sort()).toEqual([
      "unverified",
      "verified",
    ]);
    // 30 days on, the table keeps the verified one alone; the lake's report says the same.
    const later = await groups(source, "2026-11-01", "2026-11-02", "2026-12-02");
    expect(later.map((group) => group.verification.status)).toEqual(["verified"]);
  });

  it("names the campaign's field as the stored postbacks read one by one do", async () => {
    const aak = readAdAttributionKitPostback(AAK_DEVELOPMENT);
    const postbacks = [
      stored(readSkadnetworkPostback(SKAN_4_FINE), "2026-11-02T00:00:00.000Z"),
      stored(readSkadnetworkPostback(SKAN_3_WIN), "2026-11-02T00:00:00.000Z"),
      stored(aak, "2026-11-02T00:00:00.000Z"),
    ];
    const found = await groups(await lakeOf(postbacks), "2026-11-01", "2026-11-03");
    const fields = (list: readonly ApplePostbackGroup[]) =>
      list.map((group) => `${group.sourceIdentifier} ${group.identifierField}`).sort();
    expect(fields(found)).toEqual([
      "1234 source-identifier",
      "42 campaign-id",
      "5239 source-identifier",
    ]);
    expect(fields(found)).toEqual(fields(groupsOf(postbacks)));
    // And every other field of each group, AdAttributionKit's re-engagement one among them: of
    // the verification, what the report reads (the lake keeps no key id or reason).
    const bySource = (list: readonly ApplePostbackGroup[]) =>
      [...list]
        .sort((a, b) => a.sourceIdentifier.localeCompare(b.sourceIdentifier))
        .map(({ verification: { status, environment }, ...group }) => ({
          ...group,
          verification: { status, environment },
        }));
    expect(bySource(found)).toEqual(bySource(groupsOf(postbacks)));
    expect(found.find((group) => group.sourceIdentifier === "1234")?.reengagement).toBe(true);
    expect(found.filter((group) => group.reengagement)).toHaveLength(1);
  });

  it("reads the days either side of the window, where a transaction's other rows lie", () => {
    expect(
      skadnetworkDaysOf(new Date("2026-11-10T00:00:00Z"), new Date("2026-11-11T00:00:00Z")),
    ).toEqual({ from: "2026-10-31", to: "2026-11-21" });
  });
});
