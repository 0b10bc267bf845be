import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docPage } from "../../test/support/doc-page.ts";
import type { StoredApplePostback } from "../ports/apple-postbacks.ts";
import type { LakeRecord } from "../ports/lake.ts";
import {
  AAK_DEVELOPMENT,
  SKAN_3_WIN,
  SKAN_4_COARSE,
  SKAN_4_FINE,
} from "./apple-samples.test-support.ts";
import { createPostbackTable } from "./postback-table.test-support.ts";
import { readPostback } from "./postbacks.ts";
import { applePostbackRow } from "./receive.ts";
import { applePostbackGroupOf, buildSkadnetworkQuery } from "./report-query.ts";

const DOC = docPage("skadnetwork.md");
const _PAGE = DOC.text;
const snippet = (language: string) => DOC.snippet(language);

/** The app the page's query names. */
const APP = "com.example.game";

/** A body as the endpoint reads it, received at `receivedAt`, with `over` changed. */
const row = (
  kind: "skadnetwork" | "adattributionkit",
  body: unknown,
  receivedAt: string,
  over: Partial<StoredApplePostback> = {},
): LakeRecord => {
  const read = readPostback(kind, body);
  if (!read.ok) throw new Error(read.problem);
  return applePostbackRow({
    ...read.postback,
    receivedAt,
    valuesDisputed: false,
    ...over,
    appId: APP,
  });
};

describe("docs/skadnetwork.md", () => {
  let duckdb: DuckDBInstance;
  beforeAll(async () => {
    duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    const rows = [
      // Apple's copy, then one of another holder with other values, which disputes it: its row
      // is written at the first copy's time, so neither is the last received.
      row("skadnetwork", SKAN_4_FINE, "2026-11-02T10:00:00.000Z"),
      row("skadnetwork", { ...SKAN_4_FINE, "conversion-value": 1 }, "2026-11-02T10:00:00.000Z"),
      // A forged copy first (its campaign changed: unverified), then Apple's, which replaced it.
      row(
        "skadnetwork",
        { ...SKAN_4_COARSE, "source-identifier": "12", "coarse-conversion-value": "low" },
        "2026-11-02T09:00:00.000Z",
      ),
      row("skadnetwork", SKAN_4_COARSE, "2026-11-03T10:00:00.000Z"),
      // A test's copy of the same transaction, earlier and with another value: it disputes
      // nothing signed for production, and the production copy took its place.
      row(
        "skadnetwork",
        { ...SKAN_4_COARSE, "coarse-conversion-value": "low" },
        "2026-11-02T08:00:00.000Z",
        {
          verification: {
            status: "verified",
            environment: "development",
            keyId: "apple-development-identifier/0",
            reason: null,
          },
        },
      ),
      // A device's retry, written again a day later.
      row("skadnetwork", SKAN_3_WIN, "2026-11-02T11:00:00.000Z"),
      row("skadnetwork", SKAN_3_WIN, "2026-11-03T11:00:00.000Z"),
      // A test's postback alone: counted by neither.
      row("adattributionkit", AAK_DEVELOPMENT, "2026-11-02T12:00:00.000Z"),
    ];
    await createPostbackTable(connection, "apple_postbacks", rows);
    connection.closeSync();
  });
  afterAll(() => duckdb.closeSync());

  it("gives owners a lake query that counts each postback as the report does", async () => {
    const connection = await duckdb.connect();
    try {
      const documented = (await connection.runAndReadAll(snippet("sql"))).getRowObjectsJS();
      const report = (
        await connection.runAndReadAll(
          buildSkadnetworkQuery({
            dialect: "duckdb",
            appId: APP,
            from: new Date("2026-11-01T00:00:00Z"),
            to: new Date("2026-11-05T00:00:00Z"),
            source: "apple_postbacks",
            now: new Date("2026-11-05T00:00:00Z"),
          }),
        )
      )
        .getRowObjectsJS()
        .map(applePostbackGroupOf);
      const counted = new Map<string, number>();
      for (const group of report) {
        if (group.verification.status !== "verified") continue;
        if (group.verification.environment !== "production") continue;
        const key = `${group.sourceIdentifier} ${group.conversionValue} ${group.coarseValue}`;
        counted.set(key, (counted.get(key) ?? 0) + group.postbacks);
      }
      const lines = (entries: Iterable<[string, number]>) => [...entries].sort();
      expect(
        lines(
          documented.map((found) => [
            `${found.source_identifier} ${found.conversion_value ?? null} ${found.coarse_conversion_value ?? null}`,
            Number(found.postbacks),
          ]),
        ),
      ).toEqual(lines(counted));
      // The disputed postback with no value, the coarse one as Apple sent it, the retry once.
      expect(lines(counted)).toEqual([
        ["39 null high", 1],
        ["42 20 null", 1],
        ["5239 null null", 1],
      ]);
    } finally {
      connection.closeSync();
    }
  });
});
