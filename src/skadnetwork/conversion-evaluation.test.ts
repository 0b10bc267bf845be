/**
 * The reference evaluation against the SDKs' shared cases (sdk/conformance/conversion-values.json),
 * and the schema's own checks.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { exportEventName } from "../domain/event-types.ts";
import { readRevenue } from "../ingest/revenue.ts";
import { type ConversionCall, evaluate, initialState } from "./conversion-evaluation.ts";
import { describeRule, meaningOf, parseConversionSchema } from "./conversion-schema.ts";

const vectors = z
  .object({
    rates: z.record(z.string(), z.number()),
    schemas: z.record(z.string(), z.unknown()),
    cases: z.array(
      z.object({
        name: z.string(),
        schema: z.string(),
        events: z.array(
          z.object({
            name: z.string(),
            hours_after_install: z.number(),
            // The `revenue` parameter as the app passes it: a number, or a string the service reads.
            revenue: z
              .object({ amount: z.union([z.number(), z.string()]), currency: z.string() })
              .optional(),
            parameters: z.record(z.string(), z.unknown()).optional(),
          }),
        ),
        calls: z.array(
          z
            .object({
              window: z.union([z.literal(0), z.literal(1), z.literal(2)]),
              fine: z.number().nullable(),
              coarse: z.enum(["low", "medium", "high"]),
              lock: z.boolean(),
            })
            .nullable(),
        ),
      }),
    ),
  })
  .parse(
    JSON.parse(
      readFileSync(
        new URL("../../sdk/conformance/conversion-values.json", import.meta.url),
        "utf8",
      ),
    ),
  );

describe("the conversion value schema on a device", () => {
  it.each(vectors.cases.map((c) => [c.name, c] as const))("%s", (_name, vector) => {
    const schema = parseConversionSchema(vectors.schemas[vector.schema]);
    let state = initialState();
    const calls: (ConversionCall | null)[] = [];
    for (const event of vector.events) {
      // Revenue as the service reads it: an event it refuses for its revenue is refused whole,
      // so the device counts nothing of it either.
      const read = event.revenue
        ? readRevenue(
            { revenue: event.revenue.amount, currency: event.revenue.currency },
            () => undefined,
          )
        : null;
      if (read !== null && !read.ok) {
        calls.push(null);
        continue;
      }
      const step = evaluate(
        schema,
        state,
        {
          name: event.name,
          hoursAfterInstall: event.hours_after_install,
          revenue: read?.revenue ?? null,
          parameters: event.parameters ?? {},
        },
        vectors.rates,
      );
      state = step.state;
      calls.push(step.call);
    }
    expect(calls).toEqual(vector.calls);
  });
});

describe("the conversion value schema", () => {
  const game = parseConversionSchema(vectors.schemas.game);

  it("reads a currency's code as the service records it, the spaces around it trimmed", () => {
    const ranges = parseConversionSchema(vectors.schemas.ranges);
    for (const currency of ["USD", "usd", " usd ", "\tUSD\n", "\ufeffUSD\u00a0"]) {
      const step = evaluate(
        ranges,
        initialState(),
        { name: "service_purchase", hoursAfterInstall: 1, revenue: { amount: 2, currency } },
        vectors.rates,
      );
      expect(step.call, JSON.stringify(currency)).toEqual({
        window: 0,
        fine: 10,
        coarse: "low",
        lock: false,
      });
    }
  });

  it("is refused without a fine value in the first window, or with one later, or out of range", () => {
    const rule = { event: "service_purchase", coarse: "high" };
    expect(() =>
      parseConversionSchema({ windows: [{ rules: [rule] }, { rules: [] }, { rules: [] }] }),
    ).toThrow(
      "body.windows[0].rules[0].fine: is required in the first window (a fine value 1 to 63)",
    );
    expect(() =>
      parseConversionSchema({
        windows: [{ rules: [] }, { rules: [{ ...rule, fine: 3 }] }, { rules: [] }],
      }),
    ).toThrow(/later windows have coarse values alone/);
    expect(() =>
      parseConversionSchema({
        windows: [{ rules: [{ ...rule, fine: 64 }] }, { rules: [] }, { rules: [] }],
      }),
    ).toThrow("body.windows[0].rules[0].fine: must be from 1 to 63");
    // 0 is every registered install's: no rule's worth.
    expect(() =>
      parseConversionSchema({
        windows: [{ rules: [{ ...rule, fine: 0 }] }, { rules: [] }, { rules: [] }],
      }),
    ).toThrow("body.windows[0].rules[0].fine: must be from 1 to 63");
    expect(() => parseConversionSchema({ windows: [{ rules: [] }] })).toThrow(
      /the three conversion windows/,
    );
    expect(() =>
      parseConversionSchema({
        windows: [
          { rules: [{ ...rule, fine: 1, revenue_usd: { min: 5, max: 1 } }] },
          { rules: [] },
          { rules: [] },
        ],
      }),
    ).toThrow(/max must be above min/);
  });

  it("takes a rule for any event the export names, in any script, and refuses other names", () => {
    const schemaOf = (event: string) => ({
      windows: [{ rules: [{ event, fine: 1, coarse: "low" }] }, { rules: [] }, { rules: [] }],
    });
    const custom = exportEventName("CUSTOM", `${"Café Visit ".repeat(9)}購入 完了`);
    for (const event of [
      exportEventName("PURCHASE"),
      exportEventName("CUSTOM", "Café Visit"),
      exportEventName("CUSTOM", "購入 完了"),
      custom,
    ]) {
      expect(parseConversionSchema(schemaOf(event)).windows[0]?.rules[0]?.event).toBe(event);
    }
    for (const event of ["purchase", "service_Purchase", "service_", "service_a-b", "SERVICE_X"]) {
      expect(() => parseConversionSchema(schemaOf(event)), event).toThrow(
        /must be an event_name as exported/,
      );
    }
  });

  it("reads a value back as the rules that give it", () => {
    expect(meaningOf(game, 0, { fine: 20, coarse: null })).toEqual([
      "service_purchase, 0.99–4.99 USD",
    ]);
    expect(meaningOf(game, 1, { fine: null, coarse: "high" })).toEqual(["service_purchase"]);
    expect(
      describeRule({
        event: "service_level_achieved",
        min_count: 1,
        parameter: { name: "level", at_least: 10 },
        coarse: "medium",
        lock: false,
      }),
    ).toBe("service_level_achieved, level ≥ 10");
  });
});
