import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  COMMA,
  type CsvPageMarkup,
  CsvPageMarkupBody,
  copyField,
  fromCsvPage,
  putBytes,
  SHEET_DECLINED,
  XML_DECLINED,
} from "./csv-page.ts";
import { inPieces } from "./fixtures.test-support.ts";

const BAR = Buffer.from("|");
const NEWLINE = Buffer.from("\n");

/**
 * A markup of two fields a record, `a|b` a line, that counts the records its line writer
 * declined (and the record writer then wrote).
 */
const pipes = () => {
  const declined: (string | null)[][] = [];
  const markup: CsvPageMarkup = {
    head: "<",
    tail: ">",
    tagBytes: 2,
    line(csv, start, end, _index, out, at) {
      const first = copyField(csv, start, end, out, at, XML_DECLINED);
      if (first < 0) return -1;
      const k = start + (first - at);
      if (k >= end || csv[k] !== COMMA) return -1;
      const second = copyField(csv, k + 1, end, out, putBytes(out, first, BAR), XML_DECLINED);
      if (second < 0 || k + 1 + (second - first - 1) !== end) return -1;
      return putBytes(out, second, NEWLINE);
    },
    record(fields) {
      declined.push([...fields]);
      return `${fields.map((field) => field ?? "null").join("|")}\n`;
    },
  };
  return { markup, declined };
};

const text = async (parts: AsyncIterable<Buffer>) => {
  let all = "";
  for await (const part of parts) all += part.toString("utf8");
  return all;
};

/** Lines of 256 KB and more: enough for several of the markup's parts. */
const partsOfLines = () =>
  Array.from({ length: 60_000 }, (_, i) => `${"v".repeat(20)},${i}\n`).join("");

describe("the markup of a csv page", () => {
  const page = Buffer.from('x,y\na,b\nc,d\n"q,1",e\n,f&\ng,h\n');

  it("writes plain lines from their bytes and hands the others over as fields, in any pieces", async () => {
    for (const sizes of [[], [1], [3, 5]]) {
      const { markup, declined } = pipes();
      expect(await text(fromCsvPage(inPieces(page, sizes), markup))).toBe(
        "<a|b\nc|d\nq,1|e\nnull|f&\ng|h\n>",
      );
      // The quoted field and the markup character are declined; the plain lines are not.
      expect(declined).toEqual([
        ["q,1", "e"],
        [null, "f&"],
      ]);
    }
  });

  it("refuses a quoted field with text after its closing quote", async () => {
    const { markup } = pipes();
    await expect(
      text(fromCsvPage(inPieces(Buffer.from('x,y\n"q"r,e\n'), []), markup)),
    ).rejects.toThrow("a csv page field with text after its closing quote");
  });

  it("writes a record longer than a part's room whole, plain or quoted", async () => {
    const long = "v".repeat(600_000);
    const { markup, declined } = pipes();
    const page = Buffer.from(`x,y\na,b\n${long},e\n"${long}",f\n`);
    const whole = `<a|b\n${long}|e\n${long}|f\n>`;
    for (const sizes of [[], [70_000]]) {
      declined.length = 0;
      const written = await text(fromCsvPage(inPieces(page, sizes), markup));
      // Compared whole, but not shown whole when it differs.
      expect(written.length).toBe(whole.length);
      expect(written === whole).toBe(true);
      // Longer than the room: both take the strings' way.
      expect(declined.map((fields) => fields[1])).toEqual(["e", "f"]);
    }
  });

  it("closes the page when its reader stops early, or drops the body unread", async () => {
    const stopped = Readable.from([Buffer.from(`x,y\n${partsOfLines()}`)]);
    for await (const _part of fromCsvPage(stopped, pipes().markup)) break;
    expect(stopped.destroyed).toBe(true);
    const unread = Readable.from([Buffer.from("x,y\na,b\n")]);
    new CsvPageMarkupBody(unread, pipes().markup).destroy();
    expect(unread.destroyed).toBe(true);
  });

  it("writes its parts into as many buffers as it is given, in turn", async () => {
    const lines = partsOfLines();
    const { markup } = pipes();
    const parts = fromCsvPage(Readable.from([Buffer.from(`x,y\n${lines}`)]), markup, {
      buffers: 2,
    });
    const seen: { part: Buffer; copy: string }[] = [];
    for await (const part of parts) seen.push({ part, copy: part.toString("latin1") });
    expect(seen.length).toBeGreaterThan(3);
    const buffers = new Set(seen.slice(0, -1).map(({ part }) => part.buffer));
    expect(buffers.size).toBe(2);
    expect(seen.map(({ copy }) => copy).join("")).toBe(`<${lines.replaceAll(",", "|")}>`);
  });

  it("copies a field up to its comma, declining the bytes the format's table declines", () => {
    const copied = (field: string, declined: Uint8Array) => {
      const csv = Buffer.from(`${field},next`);
      const out = Buffer.alloc(csv.length);
      const end = copyField(csv, 0, csv.length, out, 0, declined);
      return end < 0 ? undefined : out.toString("utf8", 0, end);
    };
    for (const field of ["user_x0041_", "_x005F_", "banner_1080_x1920_v2", "_xBEEF_tail"]) {
      // Text a spreadsheet would read as its escapes: xlsx writes it escaped, the strings' way.
      expect(copied(field, SHEET_DECLINED)).toBeUndefined();
      expect(copied(field, XML_DECLINED)).toBe(field);
    }
    // Underscores that begin no escape are copied: `_X` is not one, nor a short or cut one.
    for (const field of ["service_purchase", "_X0041_", "_x004_", "_x0041", "_x00G1_", "a_x"]) {
      expect(copied(field, SHEET_DECLINED)).toBe(field);
    }
    // The comma ends the field: `_x0041` then `_` in the next field is no escape.
    const csv = Buffer.from("_x0041,_");
    expect(copyField(csv, 0, csv.length, Buffer.alloc(8), 0, SHEET_DECLINED)).toBe(6);
    expect(copied('a"b', XML_DECLINED)).toBeUndefined();
    expect(copied("a<b", SHEET_DECLINED)).toBeUndefined();
  });
});
