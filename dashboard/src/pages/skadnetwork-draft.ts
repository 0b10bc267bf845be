/**
 * The SKAdNetwork page's forms as typed, what they send, and the service's refusals read back
 * in the page's own words. The schema's refusals name the request body's field
 * (`body.windows[0].rules[2].fine: must be from 1 to 63`), the ad network names' the id or its
 * media source (`body.networks: x is not an ad network id …`, `body.networks.<id>: …`); each is
 * shown beside the input it is about, under the input's label, and listed under the form with
 * its window and rule.
 */
import type { CoarseValue, ConversionRule, ConversionSchema, ConversionWindow } from "../api.ts";
import { capitalised, moreProblems, plainMessage, problemsOf } from "../messages.ts";
import { pathSegments } from "./partner-draft.ts";

/** Apple's three conversion windows, by days since the first open; fine values in the first. */
export const WINDOWS = [
  { name: "Window 1", span: "the first 2 days after the first open", fine: true },
  { name: "Window 2", span: "days 2 to 7", fine: false },
  { name: "Window 3", span: "days 7 to 35", fine: false },
] as const;

export const MAX_FINE_VALUE = 63;
export const COARSE_VALUES: readonly CoarseValue[] = ["low", "medium", "high"];

/** One rule as typed: numbers stay text until saved, so the service names what is wrong. */
export interface RuleRow {
  /** Stable across edits, for the row's inputs' ids. */
  readonly key: number;
  readonly event: string;
  readonly minCount: string;
  readonly revenueMin: string;
  readonly revenueMax: string;
  readonly parameter: string;
  readonly atLeast: string;
  readonly fine: string;
  readonly coarse: CoarseValue;
  readonly lock: boolean;
}

/** The three windows' rules. */
export type SchemaDraft = readonly (readonly RuleRow[])[];

/** A rule's inputs, each with its label (the refusals name them so). */
export const RULE_FIELDS = {
  event: "Event",
  min_count: "Times, at least",
  revenue_min: "Revenue from (USD)",
  revenue_max: "Revenue below (USD)",
  parameter: "Parameter",
  at_least: "Parameter at least",
  fine: "Fine value (1–63)",
  coarse: "Coarse value",
  lock: "Lock the window",
} as const;
export type RuleField = keyof typeof RULE_FIELDS;

/** The input of one field of one rule: `rule:<key>:<field>`. */
export const ruleField = (key: number, field: RuleField) => `rule:${key}:${field}`;
export const windowField = (window: number) => `window:${window}`;

let nextKey = 1;

const text = (value: number | undefined) => (value === undefined ? "" : String(value));

/** A rule as its row; an empty row to fill when there is none. */
export const ruleRow = (rule?: ConversionRule): RuleRow => ({
  key: nextKey++,
  event: rule?.event ?? "",
  // 1 is what a rule left without a count means: the field shows it as its placeholder.
  minCount: rule?.min_count === undefined || rule.min_count === 1 ? "" : String(rule.min_count),
  revenueMin: rule?.revenue_usd ? text(rule.revenue_usd.min) : "",
  revenueMax: rule?.revenue_usd ? text(rule.revenue_usd.max) : "",
  parameter: rule?.parameter?.name ?? "",
  atLeast: text(rule?.parameter?.at_least),
  fine: text(rule?.fine),
  coarse: rule?.coarse ?? "low",
  lock: rule?.lock ?? false,
});

export const draftOf = (schema: ConversionSchema | null): SchemaDraft =>
  WINDOWS.map((_, window) => (schema?.windows[window]?.rules ?? []).map((rule) => ruleRow(rule)));

const blank = (value: string) => value.trim() === "";
/** Text as a number; what cannot be one goes as NaN, sent as null, for the service to refuse. */
const numberOf = (value: string): number => (blank(value) ? Number.NaN : Number(value));

/** The request's windows: each row's rule, what was left empty left out. */
export const requestOf = (draft: SchemaDraft): ConversionWindow[] =>
  WINDOWS.map((window, index) => ({
    rules: (draft[index] ?? []).map((row) => {
      const rule: ConversionRule = { event: row.event.trim(), coarse: row.coarse, lock: row.lock };
      if (!blank(row.minCount)) rule.min_count = numberOf(row.minCount);
      if (!blank(row.revenueMin) || !blank(row.revenueMax)) {
        rule.revenue_usd = {};
        if (!blank(row.revenueMin)) rule.revenue_usd.min = numberOf(row.revenueMin);
        if (!blank(row.revenueMax)) rule.revenue_usd.max = numberOf(row.revenueMax);
      }
      if (!blank(row.parameter) || !blank(row.atLeast)) {
        rule.parameter = { name: row.parameter.trim(), at_least: numberOf(row.atLeast) };
      }
      // Left empty in the first window, the service says it is required there.
      if (window.fine && !blank(row.fine)) rule.fine = numberOf(row.fine);
      return rule;
    }),
  }));

// The service's refusals

/** One problem the service named: the input it is about, beside it, and under the form. */
export interface Problem {
  readonly field: string | null;
  /** Beside the input: `Fine value must be from 1 to 63`. */
  readonly beside: string;
  /** Under the form, with its place: `Window 1, rule 2: Fine value must be from 1 to 63`. */
  readonly text: string;
}

const PROBLEM = /^(body(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*):\s(.*)$/s;

/**
 * A field's label as a refusal names it, without what the input says of units or bounds:
 * `Fine value (1–63)` → `Fine value`, `Times, at least` → `Times`.
 */
const bare = (label: string) => label.replace(/\s*\([^)]*\)$/, "").replace(/, at least$/, "");

const ruleProblem = (field: RuleField, message: string): string => {
  const label = bare(RULE_FIELDS[field]);
  if (field === "event" && /event_?name/.test(message)) {
    return "Event must be an event name as the export writes it: lowercase letters, digits and _ (service_purchase)";
  }
  return `${label} ${plainMessage(message)}`;
};

/** The rule's input a path below `rules[r]` names. */
const ruleFieldOf = (segments: readonly (string | number)[]): RuleField | null => {
  const [part, sub] = segments;
  switch (part) {
    case "event":
    case "min_count":
    case "fine":
    case "coarse":
    case "lock":
      return part;
    case "revenue_usd":
      return sub === "min" ? "revenue_min" : "revenue_max";
    case "parameter":
      return sub === "at_least" ? "at_least" : "parameter";
    default:
      return null;
  }
};

/**
 * A 422's detail (problems joined by `; `, each `path: message`) as the form's problems; a
 * problem about no input keeps the service's words.
 */
export const schemaProblemsOf = (detail: string, draft: SchemaDraft): Problem[] =>
  problemsOf(detail).map((problem): Problem => {
    const more = moreProblems(problem);
    if (more) return { field: null, beside: "", text: more };
    const match = PROBLEM.exec(problem);
    const segments = match?.[1] ? pathSegments(match[1].replace(/^body\.?/, "")) : null;
    const message = match?.[2] ?? problem;
    if (segments?.[0] !== "windows" || typeof segments[1] !== "number") {
      const general = capitalised(plainMessage(message));
      return { field: null, beside: general, text: general };
    }
    const window = segments[1];
    const name = WINDOWS[window]?.name ?? `Window ${window + 1}`;
    const rule = segments[2] === "rules" ? segments[3] : undefined;
    if (typeof rule !== "number") {
      // The window's rules as a whole: too many of them.
      const beside = `${name} ${plainMessage(message).replace(/^must be /, "may have ")}`;
      return { field: windowField(window), beside, text: beside };
    }
    const row = draft[window]?.[rule];
    const field = ruleFieldOf(segments.slice(4));
    const place = `${name}, rule ${rule + 1}`;
    if (field === "revenue_max" && segments.length === 5) {
      // The range as a whole: its end not above its start.
      const beside = "Revenue below must be more than revenue from";
      return { field: row ? ruleField(row.key, field) : null, beside, text: `${place}: ${beside}` };
    }
    if (!field) {
      const beside = capitalised(plainMessage(message));
      return { field: null, beside, text: `${place}: ${beside}` };
    }
    const beside = ruleProblem(field, message);
    return { field: row ? ruleField(row.key, field) : null, beside, text: `${place}: ${beside}` };
  });

/** The ad network names' refusal: the id's, or its media source's. */
export const networkProblemsOf = (detail: string): Problem[] =>
  problemsOf(detail).map((problem): Problem => {
    if (/^body\.networks:\s.*is not an ad network id/.test(problem)) {
      const beside =
        "Ad network id must be an id as the network publishes it, such as abcd1234ef.skadnetwork: letters, digits, ., _ and -";
      return { field: "id", beside, text: beside };
    }
    if (problem.startsWith("body.networks.")) {
      const message = problem.replace(/^body\.networks\..*?:\s/, "");
      const beside = `Media source ${message.replace(/^must be a media source of /, "must be ")}`;
      return { field: "media_source", beside, text: beside };
    }
    const general = capitalised(problem.replace(/^body(\.networks)?:\s/, ""));
    return { field: null, beside: general, text: general };
  });

/** The problems by field, the first of each, in the words beside the input. */
export const besideByField = (problems: readonly Problem[]): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const problem of problems) {
    if (problem.field && !fields[problem.field]) fields[problem.field] = problem.beside;
  }
  return fields;
};
