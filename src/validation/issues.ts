/**
 * Turning validation problems into one line, the one formatter of zod issues: the `detail` of
 * an error body, and the message of a bad environment at start-up or at synth.
 */
import type { z } from "zod";
import { ValidationError } from "../domain/errors.ts";

/** The status name every rejected event and request carries (docs/api.md#errors). */
export const UNPROCESSABLE = "Unprocessable Entity";

/** More issues than this are summarised: a detail is read by a person, not parsed. */
const MAX_ISSUES_SHOWN = 5;

/** A key echoed in a detail is cut, so a 10 KiB key cannot blow up the response. */
const MAX_KEY_SHOWN = 40;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const shownKey = (key: string): string =>
  key.length > MAX_KEY_SHOWN ? `${key.slice(0, MAX_KEY_SHOWN)}…` : key;

/** `parameters.items[3].price`; keys that are not identifiers are quoted: `parameters["a b"]`. */
export const formatPath = (path: readonly PropertyKey[], root = ""): string => {
  let text = root;
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else {
      const key = String(segment);
      if (IDENTIFIER.test(key)) text += text === "" ? shownKey(key) : `.${shownKey(key)}`;
      else text += `[${JSON.stringify(shownKey(key))}]`;
    }
  }
  return text;
};

/** Joins problems into one detail, the first few in full, each once. */
export const joinProblems = (problems: readonly string[]): string => {
  // Two checks of one rule (an empty id is both too short and off-pattern) read as one.
  const unique = [...new Set(problems)];
  const shown = unique.slice(0, MAX_ISSUES_SHOWN).join("; ");
  const more = unique.length - MAX_ISSUES_SHOWN;
  return more > 0 ? `${shown}; and ${more} more` : shown;
};

/** `event_time: must be …`; an issue about the whole value is named by `root`. */
export const formatIssues = (issues: readonly z.core.$ZodIssue[], root: string): string =>
  joinProblems(issues.map((issue) => `${formatPath(issue.path) || root}: ${issue.message}`));

const REQUIRED = "is required";

/** A field's own `error`: `is required` when it is absent, else its rule. */
export const requiredOr =
  (rule: string) =>
  (issue: { readonly input?: unknown }): string =>
    issue.input === undefined ? REQUIRED : rule;

/** The names refused, the first few, each cut: a detail is read by a person. */
export const namedKeys = (keys: readonly string[]): string => {
  const shown = keys.slice(0, 5).map((key) => JSON.stringify(key.slice(0, 40)));
  return keys.length > 5 ? `${shown.join(", ")} and ${keys.length - 5} more` : shown.join(", ");
};

/**
 * The words of a problem whose schema gives none of its own, for a parse's `error` option: a
 * missing field `is required`, a value of the wrong type `must be a string`, as the schemas that
 * give their own words say it, rather than the validation library's "Invalid input: expected
 * string, received undefined". Undefined leaves the library's.
 */
export const plainWords = (issue: z.core.$ZodRawIssue): string | undefined => {
  // A strict body's field it does not take, named as a person reads it, not the library's words.
  if (issue.code === "unrecognized_keys") return `takes no ${namedKeys(issue.keys)}`;
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return REQUIRED;
    const expected = String(issue.expected);
    return `must be ${/^[aeiou]/.test(expected) ? "an" : "a"} ${expected}`;
  }
  if (issue.code === "too_small" && issue.origin === "string") {
    return Number(issue.minimum) <= 1
      ? "must not be empty"
      : `must be at least ${issue.minimum} characters`;
  }
  if (issue.code === "too_big" && issue.origin === "string") {
    return `must be at most ${issue.maximum} characters`;
  }
  return undefined;
};

/** A checked request body, or the `detail` of its 422. */
export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly detail: string };

/** A value checked by its schema, or a ValidationError (a 422) naming what is wrong under `root`. */
export const checked = <T>(schema: z.ZodType<T>, value: unknown, root: string): T => {
  const parsed = schema.safeParse(value, { error: plainWords });
  if (!parsed.success) throw new ValidationError(formatIssues(parsed.error.issues, root));
  return parsed.data;
};
