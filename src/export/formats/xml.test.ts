import type { Readable } from "node:stream";
import fc from "fast-check";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { COLUMN_NAMES, EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
import { csv } from "./csv.ts";
import {
  ALL_NULL,
  ALL_SET,
  CONTROL_CHARS,
  CONTROL_CHARS_DROPPED,
  collect,
  inPieces,
  probeStreaming,
  RECORDS,
  recordAt,
  source,
  TRICKY,
} from "./fixtures.test-support.ts";
import { escapeXmlText, xml } from "./xml.ts";

const XSI = "http://www.w3.org/2001/XMLSchema-instance";
const HEAD = `<?xml version="1.0" encoding="UTF-8"?>\n<events xmlns:xsi="${XSI}">\n`;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  ignoreDeclaration: true,
  // Values are compared as written: no number guessing, no trimming.
  parseTagValue: false,
  trimValues: false,
  // fast-xml-parser only decodes numeric character references (&#13;) with this on.
  htmlEntities: true,
  isArray: (_name, jpath) => jpath === "events.event",
});

/** Characters XML 1.0 does not allow (tab, LF and CR are allowed). */
const isForbidden = (code: number): boolean =>
  (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
  (code >= 0xd800 && code <= 0xdfff) ||
  code === 0xfffe ||
  code === 0xffff;

/** Decodes the output strictly, checks it is well formed, and maps each <event> back to a record. */
function parse(bytes: Buffer): Record<string, string | number | null>[] {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  expect(XMLValidator.validate(text)).toBe(true);
  expect([...text].filter((char) => isForbidden(char.codePointAt(0) ?? 0))).toEqual([]);
  const events: unknown[] = parser.parse(text).events.event ?? [];
  return events.map((event) => {
    expect(event).toBeTypeOf("object");
    const fields = Object.entries(event ?? {});
    expect(fields.map(([name]) => name)).toEqual(COLUMN_NAMES);
    const record: Record<string, string | number | null> = {};
    for (const [i, [name, value]] of fields.entries()) {
      if (typeof value === "object") {
        expect(value).toEqual({ "@_xsi:nil": "true" });
        record[name] = null;
      } else if (EXPORT_COLUMNS[i]?.type === "string") {
        record[name] = String(value);
      } else {
        // Numbers are written as JavaScript prints them, so parsing returns the same value.
        expect(String(Number(value))).toBe(value);
        record[name] = Number(value);
      }
    }
    return record;
  });
}

describe("xml writer", () => {
  it("round-trips every record, in column order, nulls as xsi:nil", async () => {
    const records = [...RECORDS, CONTROL_CHARS];
    const output = await collect(xml.write(source(records)));
    expect(parse(output)).toEqual([
      ...RECORDS,
      { ...CONTROL_CHARS, campaign_name: CONTROL_CHARS_DROPPED },
    ]);
  });

  it("writes the declaration, the root with the xsi namespace, nil elements and escapes", async () => {
    const text = (await collect(xml.write(source([ALL_NULL, TRICKY])))).toString("utf8");
    expect(
      text.startsWith(`${HEAD}<event><event_id xsi:nil="true"/><event_time xsi:nil="true"/>`),
    ).toBe(true);
    expect(text.endsWith("</event>\n</events>\n")).toBe(true);
    expect(text).toContain(
      "<ad_name>&lt;tag attr=&quot;x&quot;&gt;&amp;amp; &apos;apostrophe&apos; &lt;/tag&gt;</ad_name>",
    );
    expect(text).toContain(
      "<campaign_name>line one\nline two&#13;\nline three&#13;line four</campaign_name>",
    );
    expect(text).toContain("<matching_type></matching_type>");
    expect(text).toContain("<click_to_first_open_hours>2147483647</click_to_first_open_hours>");
  });

  it("drops characters XML 1.0 cannot carry and keeps everything else", async () => {
    const bad = "a\u0000b\u0001c\u0008d\u000be\u000cf\u001fg\ud800h\udc00i\ufffej\uffffk";
    const kept = "tab\tnl\ncr\r 😀 \u{10ffff} \ufffd \u007f \u0085 end";
    const output = await collect(
      xml.write(source([{ ...ALL_SET, ad_name: bad, adset_name: kept }])),
    );
    expect(parse(output)).toEqual([{ ...ALL_SET, ad_name: "abcdefghijk", adset_name: kept }]);
  });

  it("escapes and strips in one pass, leaving clean strings untouched", () => {
    expect(escapeXmlText("plain text 広告")).toBe("plain text 広告");
    expect(escapeXmlText(`a&b<c>d"e'f\rg`)).toBe("a&amp;b&lt;c&gt;d&quot;e&apos;f&#13;g");
    expect(escapeXmlText("\ud83d\ude00\ud83d")).toBe("\ud83d\ude00");
    expect(escapeXmlText(`<&>\r\u0001\udc00`)).toBe("&lt;&amp;&gt;&#13;");
    // The ends of the surrogates' ranges: U+10000 kept whole; a high surrogate before U+E000,
    // and a lone U+DFFF, dropped.
    expect(escapeXmlText("\ud800\udc00 \ud800\ue000 \udfff")).toBe("\ud800\udc00 \ue000 ");
  });

  it("writes an empty root for no rows", async () => {
    const output = await collect(xml.write(source([])));
    expect(output.toString("utf8")).toBe(`${HEAD}</events>\n`);
    expect(parse(output)).toEqual([]);
  });

  it("streams: output starts before the source ends and all rows parse back", async () => {
    const probe = await probeStreaming(xml);
    expect(probe.rowsBeforeFirstChunk).toBeLessThan(10_000);
    expect(probe.bytesBeforeLastRow).toBeGreaterThan(HEAD.length + "</events>\n".length);
    expect(parse(probe.output)).toEqual(Array.from({ length: 10_000 }, (_, i) => recordAt(i)));
  });
});

/** Strings with what csv quotes and XML escapes or drops; numbers as the lake holds them. */
const xmlText = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc
    .array(
      fc.oneof(
        fc.constantFrom("", " ", ",", "\t", "\n", "\r", "\r\n", "\\", '"', "'", "<", ">", "&"),
        fc.constantFrom("\u0000", "\u0001", "\u001f", "\u007f", "\ufffe", "\uffff", "\uf000"),
        fc.constantFrom("é", "😀", "\u2028", `<a href="x">&amp;'</a>`),
        fc.string({ maxLength: 3 }),
      ),
      { maxLength: 6 },
    )
    .map((parts) => parts.join("")),
);
const xmlCell = (
  type: (typeof EXPORT_COLUMNS)[number]["type"],
): fc.Arbitrary<string | number | null> =>
  fc.option<string | number, null>(
    type === "string"
      ? xmlText
      : type === "integer"
        ? fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })
        : fc
            .double({ noNaN: true, noDefaultInfinity: true })
            .map((n) => (Object.is(n, -0) ? 0 : n)),
    { nil: null, freq: 4 },
  );
const anyRecord = fc.record(
  Object.fromEntries(EXPORT_COLUMNS.map((column) => [column.name, xmlCell(column.type)])),
) as fc.Arbitrary<ExportRecord>;

describe("xml from a csv page (the DuckDB path)", () => {
  const frame = (page: Readable) => {
    const framing = xml.engineEncoding?.frame;
    if (!framing) throw new Error("xml has no frame");
    return collect(framing(page, 0));
  };
  const framed = async (records: readonly ExportRecord[], sizes: readonly number[]) =>
    frame(inPieces(await collect(csv.write(source(records))), sizes));

  it("is the writer's document, byte for byte, for any records in any pieces", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(anyRecord, { maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 4 }),
        async (records, sizes) => {
          const service = await collect(xml.write(source(records)));
          expect((await framed(records, sizes)).toString("utf8")).toBe(service.toString("utf8"));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("tells null from the empty string, and keeps the fixtures' values", async () => {
    const records = [
      ...RECORDS,
      CONTROL_CHARS,
      // Lines otherwise plain, with one character the document escapes or drops.
      { ...ALL_SET, campaign_name: "Valentine's" },
      { ...ALL_SET, ad_name: "a\u0000b" },
      { ...ALL_NULL, ad_name: "", adset_name: " " },
    ];
    for (const sizes of [[], [1], [3, 1, 7]]) {
      const output = await framed(records, sizes);
      expect(output.toString("utf8")).toBe(
        (await collect(xml.write(source(records)))).toString("utf8"),
      );
      expect(parse(output).at(-1)).toEqual({ ...ALL_NULL, ad_name: "", adset_name: " " });
    }
  });

  it("refuses a page that ends inside a record", async () => {
    const page = await collect(csv.write(source([ALL_SET])));
    await expect(frame(inPieces(page.subarray(0, -1), []))).rejects.toThrow(/ends inside a record/);
  });

  it("refuses a record of a field more or fewer than the columns, rather than shift its values", async () => {
    const page = (await collect(csv.write(source([ALL_SET])))).toString("utf8");
    const [header = "", line = ""] = page.split("\n");
    for (const odd of [`${line},1`, line.slice(0, line.lastIndexOf(","))]) {
      await expect(frame(inPieces(Buffer.from(`${header}\n${odd}\n`), []))).rejects.toThrow(
        /wrong width/,
      );
    }
  });
});
