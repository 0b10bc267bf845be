/**
 * The SKAdNetwork page's forms: what a draft sends, and the service's own refusals of it (got
 * over HTTP from the embedded runtime, so a change of their words fails here) put beside the
 * input they are about.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversionSchema } from "../../dashboard/src/api.ts";
import {
  besideByField,
  draftOf,
  networkProblemsOf,
  type RuleRow,
  requestOf,
  ruleField,
  ruleRow,
  type SchemaDraft,
  schemaProblemsOf,
  windowField,
} from "../../dashboard/src/pages/skadnetwork-draft.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.skan.form";

/** A row as typed: an empty rule's fields, then those given. */
const row = (typed: Partial<Omit<RuleRow, "key">>): RuleRow => ({ ...ruleRow(), ...typed });

describe("the SKAdNetwork page's forms", () => {
  let rt: TestRuntime;
  let serverKey = "";

  /** The service's answer to the draft as the page sends it. */
  const save = async (draft: SchemaDraft) => {
    const response = await rt.fetch(
      `/v1/skadnetwork/schema?app_id=${APP}`,
      { method: "PUT", body: JSON.stringify({ windows: requestOf(draft) }) },
      serverKey,
    );
    return {
      status: response.status,
      body: (await response.json()) as { schema?: ConversionSchema; detail?: string },
    };
  };
  /** The 422's detail of a draft the service refuses. */
  const refusal = async (draft: SchemaDraft): Promise<string> => {
    const { status, body } = await save(draft);
    expect(status).toBe(422);
    return body.detail ?? "";
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    ({ serverKey } = await rt.createApp(APP, "ios"));
  });

  afterAll(async () => {
    await rt?.dispose();
  });

  it("sends what was typed, trimmed, empty fields left out, and shows a saved schema as it was sent", async () => {
    const draft: SchemaDraft = [
      [
        row({ event: " service_purchase ", revenueMin: "4.99", fine: " 63 ", coarse: "high" }),
        row({ event: "service_level_achieved", minCount: "3", fine: "20", coarse: "medium" }),
        row({
          event: "service_tutorial_completion",
          parameter: " level ",
          atLeast: "5",
          fine: "2",
          lock: true,
        }),
      ],
      // A fine value typed in a later window is not sent: those windows have coarse values alone.
      [row({ event: "service_purchase", revenueMax: "100", fine: "9", coarse: "medium" })],
      [],
    ];
    const windows = requestOf(draft);
    expect(windows).toEqual([
      {
        rules: [
          {
            event: "service_purchase",
            coarse: "high",
            lock: false,
            revenue_usd: { min: 4.99 },
            fine: 63,
          },
          {
            event: "service_level_achieved",
            coarse: "medium",
            lock: false,
            min_count: 3,
            fine: 20,
          },
          {
            event: "service_tutorial_completion",
            coarse: "low",
            lock: true,
            parameter: { name: "level", at_least: 5 },
            fine: 2,
          },
        ],
      },
      {
        rules: [
          { event: "service_purchase", coarse: "medium", lock: false, revenue_usd: { max: 100 } },
        ],
      },
      { rules: [] },
    ]);

    const { status, body } = await save(draft);
    expect(status).toBe(200);
    const saved = body.schema as ConversionSchema;
    // Read back into the form, the rows send the schema the service keeps: nothing lost or
    // added by a round through the page (a count of 1 and a revenue from 0 are the defaults
    // the service fills in, shown as such).
    const again = draftOf(saved);
    expect(again.map((rules) => rules.length)).toEqual([3, 1, 0]);
    expect(again[0]?.[0]).toMatchObject({ event: "service_purchase", minCount: "", fine: "63" });
    expect(again[1]?.[0]).toMatchObject({ revenueMin: "0", revenueMax: "100", fine: "" });
    const resent = await save(again);
    expect(resent.status).toBe(200);
    expect(resent.body.schema?.windows).toEqual(saved.windows);
  });

  it("puts each refusal of a rule beside its input, and under the form with its window and rule", async () => {
    const first = row({ event: "service_purchase", fine: "64" });
    const second = row({ event: "Purchase", fine: "5" });
    const third = row({ event: "service_purchase", revenueMin: "10", revenueMax: "5", fine: "3" });
    const fourth = row({ event: "service_purchase", parameter: "level", atLeast: "", fine: "4" });
    const later = row({ event: "service_purchase", minCount: "0" });
    const draft: SchemaDraft = [[first, second, third, fourth], [later], []];
    const problems = schemaProblemsOf(await refusal(draft), draft);
    expect(problems).toEqual([
      {
        field: ruleField(first.key, "fine"),
        beside: "Fine value must be from 1 to 63",
        text: "Window 1, rule 1: Fine value must be from 1 to 63",
      },
      {
        field: ruleField(second.key, "event"),
        beside:
          "Event must be an event name as the export writes it: lowercase letters, digits and _ (service_purchase)",
        text: "Window 1, rule 2: Event must be an event name as the export writes it: lowercase letters, digits and _ (service_purchase)",
      },
      {
        field: ruleField(third.key, "revenue_max"),
        beside: "Revenue below must be more than revenue from",
        text: "Window 1, rule 3: Revenue below must be more than revenue from",
      },
      {
        field: ruleField(fourth.key, "at_least"),
        beside: "Parameter at least must be a number",
        text: "Window 1, rule 4: Parameter at least must be a number",
      },
      {
        field: ruleField(later.key, "min_count"),
        beside: "Times must be from 1 to 10000",
        text: "Window 2, rule 1: Times must be from 1 to 10000",
      },
    ]);
    // Beside each input, its first problem.
    expect(besideByField(problems)).toEqual(
      Object.fromEntries(problems.map((problem) => [problem.field, problem.beside])),
    );
  });

  it("says a fine value left empty in the first window is required there", async () => {
    const rule = row({ event: "service_purchase", fine: " " });
    const draft: SchemaDraft = [[rule], [], []];
    expect(schemaProblemsOf(await refusal(draft), draft)).toEqual([
      {
        field: ruleField(rule.key, "fine"),
        beside: "Fine value is required in the first window (a fine value 1 to 63)",
        text: "Window 1, rule 1: Fine value is required in the first window (a fine value 1 to 63)",
      },
    ]);
  });

  it("puts a window's too many rules beside the window, and counts the problems past the fifth", async () => {
    const many = Array.from({ length: 65 }, () => row({ event: "service_purchase" }));
    const tooMany: SchemaDraft = [[], many, []];
    expect(schemaProblemsOf(await refusal(tooMany), tooMany)).toEqual([
      {
        field: windowField(1),
        beside: "Window 2 may have at most 64 rules",
        text: "Window 2 may have at most 64 rules",
      },
    ]);

    const wrong = Array.from({ length: 6 }, (_, i) =>
      row({ event: "service_purchase", fine: String(64 + i) }),
    );
    const draft: SchemaDraft = [wrong, [], []];
    const problems = schemaProblemsOf(await refusal(draft), draft);
    expect(problems).toHaveLength(6);
    expect(problems.slice(0, 5).map((problem) => problem.field)).toEqual(
      wrong.slice(0, 5).map((rule) => ruleField(rule.key, "fine")),
    );
    expect(problems[5]).toEqual({ field: null, beside: "", text: "And 1 more problem." });
  });

  it("puts a refused ad network id beside the id, a refused media source beside the media source", async () => {
    const saveNetworks = async (networks: Record<string, string>) => {
      const response = await rt.fetch(
        `/v1/skadnetwork/networks?app_id=${APP}`,
        { method: "PUT", body: JSON.stringify({ networks }) },
        serverKey,
      );
      expect(response.status).toBe(422);
      return networkProblemsOf(((await response.json()) as { detail: string }).detail);
    };
    expect(await saveNetworks({ "not an id!": "meta" })).toEqual([
      {
        field: "id",
        beside:
          "Ad network id must be an id as the network publishes it, such as abcd1234ef.skadnetwork: letters, digits, ., _ and -",
        text: "Ad network id must be an id as the network publishes it, such as abcd1234ef.skadnetwork: letters, digits, ., _ and -",
      },
    ]);
    const [source] = await saveNetworks({ "abcd1234ef.skadnetwork": " " });
    expect(source?.field).toBe("media_source");
    expect(source?.beside).toMatch(/^Media source must be /);
    expect(source?.beside).not.toContain("body.");
  });
});
