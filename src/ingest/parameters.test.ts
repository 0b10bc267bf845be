import { describe, expect, it } from "vitest";
import { INGEST_LIMITS } from "./limits.ts";
import { parametersBytes, sanitizeParameters } from "./parameters.ts";

const problemsOf = (raw: unknown): readonly string[] => {
  const result = sanitizeParameters(raw);
  return result.ok ? [] : result.problems;
};

const keptOf = (raw: unknown) => {
  const result = sanitizeParameters(raw);
  if (!result.ok) throw new Error(result.problems.join("; "));
  return result.parameters;
};

/** A map nested `levels` deep counting the parameters map: levels 1 is `{ v: 1 }`. */
const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { v: 1 };
  for (let level = 1; level < levels; level += 1) value = { n: value };
  return value;
};

describe("sanitizeParameters", () => {
  it("treats absent and null parameters as none", () => {
    expect(keptOf(undefined)).toEqual({});
    expect(keptOf(null)).toEqual({});
  });

  it("keeps the JSON of the kept parameters, and none for a map left empty", () => {
    for (const raw of [undefined, null, {}, { a: null }]) {
      expect(sanitizeParameters(raw), JSON.stringify(raw)).toEqual({
        ok: true,
        parameters: {},
        json: null,
      });
    }
    expect(sanitizeParameters({ a: null, b: "é" })).toEqual({
      ok: true,
      parameters: { b: "é" },
      json: '{"b":"é"}',
    });
  });

  it("keeps strings, finite numbers, booleans, lists and nested maps", () => {
    const raw = { s: "a", n: -1.5, b: false, l: [1, "x", true, [2]], m: { k: { j: "v" } } };
    expect(keptOf(raw)).toEqual(raw);
  });

  it("drops a null value with its key, in nested maps too, and keeps nulls in lists", () => {
    const raw = { a: null, b: { c: null, d: 1 }, l: [null, { e: null, f: 2 }, null] };
    expect(keptOf(raw)).toEqual({ b: { d: 1 }, l: [null, { f: 2 }, null] });
    expect(raw.b).toEqual({ c: null, d: 1 }); // the input is not modified
  });

  it("refuses a value that is not a map", () => {
    for (const raw of [[1], "x", 3, true]) {
      expect(problemsOf(raw)).toEqual(["parameters: must be a map of string keys to values"]);
    }
  });

  it("names the path of an unsupported value", () => {
    expect(
      problemsOf({ items: [{ price: 1 }, { price: 2 }, { price: 3 }, { price: undefined }] }),
    ).toEqual([
      "parameters.items[3].price: must be a string, a finite number, a boolean, a list or a map",
    ]);
    expect(problemsOf({ when: new Date(0) })).toEqual([
      "parameters.when: must be a string, a finite number, a boolean, a list or a map",
    ]);
    expect(problemsOf({ big: 1n })).toEqual([
      "parameters.big: must be a string, a finite number, a boolean, a list or a map",
    ]);
  });

  it("refuses NaN and the infinities", () => {
    expect(problemsOf({ a: Number.NaN, "b c": [Number.POSITIVE_INFINITY] })).toEqual([
      "parameters.a: must be a finite number",
      'parameters["b c"][0]: must be a finite number',
    ]);
  });

  it("checks the holes of a sparse list", () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point of the test
    expect(problemsOf({ l: [1, , 3] })).toEqual([
      "parameters.l[1]: must be a string, a finite number, a boolean, a list or a map",
    ]);
  });

  it("refuses a __proto__ key, which would set a prototype instead of a value", () => {
    expect(problemsOf(JSON.parse('{"a":{"__proto__":{"x":1}}}'))).toEqual([
      "parameters.a.__proto__: is a reserved key",
    ]);
  });

  it("accepts a string of the longest length and refuses one more", () => {
    const max = INGEST_LIMITS.maxParameterStringLength;
    expect(problemsOf({ s: "x".repeat(max) })).toEqual([]);
    expect(problemsOf({ s: "x".repeat(max + 1) })).toEqual([
      `parameters.s: is ${max + 1} characters; a string may have at most ${max}`,
    ]);
  });

  it("accepts keys of 1 to 100 characters", () => {
    const max = INGEST_LIMITS.maxParameterKeyLength;
    expect(problemsOf({ ["k".repeat(max)]: 1 })).toEqual([]);
    expect(problemsOf({ ["k".repeat(max + 1)]: 1 })).toEqual([
      `parameters.${"k".repeat(40)}…: key must be 1 to ${max} characters`,
    ]);
    expect(problemsOf({ "": 1 })).toEqual([`parameters[""]: key must be 1 to ${max} characters`]);
  });

  it("accepts 100 keys in a map, not counting null values, and refuses 101", () => {
    const max = INGEST_LIMITS.maxParameterKeys;
    const full = Object.fromEntries(Array.from({ length: max }, (_, i) => [`k${i}`, i]));
    expect(problemsOf({ ...full, extra: null })).toEqual([]);
    expect(problemsOf({ ...full, extra: 1 })).toEqual([
      `parameters: holds ${max + 1} keys; a map may hold at most ${max}`,
    ]);
    expect(problemsOf({ inner: { ...full, extra: 1 } })).toEqual([
      `parameters.inner: holds ${max + 1} keys; a map may hold at most ${max}`,
    ]);
  });

  it("accepts 5 levels of nesting and refuses a 6th", () => {
    expect(INGEST_LIMITS.maxParameterDepth).toBe(5);
    expect(problemsOf(nested(5))).toEqual([]);
    expect(problemsOf(nested(6))).toEqual([
      "parameters.n.n.n.n.n: nests lists and maps more than 5 levels deep",
    ]);
    expect(problemsOf({ l: [[[[1]]]] })).toEqual([]);
    expect(problemsOf({ l: [[[[[]]]]] })).toEqual([
      "parameters.l[0][0][0][0]: nests lists and maps more than 5 levels deep",
    ]);
  });

  it("accepts 10 KiB of JSON and refuses one byte more, counting UTF-8 bytes", () => {
    const max = INGEST_LIMITS.maxParametersBytes;
    const overhead = parametersBytes({ s: [] }); // {"s":[]}
    // Strings of 998 characters serialise to 1,000 bytes each, with quotes and comma.
    const exact = (bytes: number) => {
      const count = Math.floor((bytes - overhead + 1) / 1_001);
      const items = Array.from({ length: count }, () => "x".repeat(999));
      const used = parametersBytes({ s: items });
      const rest = bytes - used - (count > 0 ? 3 : 2);
      return { s: [...items, "y".repeat(rest)] };
    };
    expect(parametersBytes(exact(max))).toBe(max);
    expect(problemsOf(exact(max))).toEqual([]);
    expect(parametersBytes(exact(max + 1))).toBe(max + 1);
    expect(problemsOf(exact(max + 1))).toEqual([
      `parameters: are ${max + 1} bytes as JSON; at most ${max} (10 KiB)`,
    ]);
    // "é" is 2 bytes in UTF-8: 600 of them in each of 9 strings are over 10 KiB, not 5,400 chars.
    expect(problemsOf({ s: Array.from({ length: 9 }, () => "é".repeat(600)) })).toHaveLength(1);
  });

  it("does not count dropped nulls in the size", () => {
    const max = INGEST_LIMITS.maxParametersBytes;
    const padding = "x".repeat(900);
    const raw = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, null]));
    expect(problemsOf({ ...raw, padding })).toEqual([]);
    expect(parametersBytes(keptOf({ ...raw, padding }))).toBeLessThan(max);
  });

  it("reports every problem, not just the first", () => {
    expect(problemsOf({ a: Number.NaN, b: { c: () => 1 } })).toHaveLength(2);
  });
});
