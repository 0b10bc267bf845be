/** Firehose's error output read back: the lake records to put again, and the lines kept. */
import { describe, expect, it } from "vitest";
import { lakeEvent } from "../../test/support/records.ts";
import { readErrorObject } from "./error-records.ts";
import { EVENTS_TABLE, PARTITION_DAY_KEY } from "./lake-tables.ts";

/** One error document whose record's bytes are `text`. */
const documentOf = (text: string) =>
  JSON.stringify({ errorCode: "S3.AccessDenied", rawData: Buffer.from(text).toString("base64") });

describe("an error object of Firehose's, read back", () => {
  it("takes a document's lake records, their partition day left for the stream to name again", () => {
    const first = lakeEvent({ app_id: "com.example.errors", event_id: "e1" });
    const second = lakeEvent({ app_id: "com.example.errors", event_id: "e2" });
    const packed = `${JSON.stringify({ ...first, [PARTITION_DAY_KEY]: "2026-11-01" })}\n\n${JSON.stringify(second)}\n`;
    expect(readErrorObject(EVENTS_TABLE, `${documentOf(packed)}\n\n`)).toEqual({
      records: [first, second],
      kept: [],
    });
  });

  it("keeps whole, saying why, a line that is not a document of the table's records", () => {
    const good = JSON.stringify(lakeEvent({ app_id: "com.example.errors", event_id: "e3" }));
    const lines = [
      "not json",
      JSON.stringify({ rawData: 5 }),
      JSON.stringify([{ rawData: "" }]),
      documentOf("not json lines"),
      documentOf("5"),
      documentOf("[1]"),
      // A good record beside a bad value: the document stays whole, so none of it is put twice.
      documentOf(`${good}\n[1]`),
      // A record, but not of the table: missing its columns.
      documentOf(JSON.stringify({ app_id: "com.example.errors", event_id: "e4" })),
    ];
    const read = readErrorObject(EVENTS_TABLE, lines.join("\n"));
    expect(read.records).toEqual([]);
    expect(read.kept).toEqual(
      [
        "not a JSON document",
        "no rawData",
        "no rawData",
        "rawData is not JSON lines",
        "rawData holds a value that is not a record",
        "rawData holds a value that is not a record",
        "rawData holds a value that is not a record",
        expect.stringMatching(/\S/),
      ].map((reason, at) => ({ line: lines[at], reason })),
    );
  });
});
