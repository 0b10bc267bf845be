/**
 * Event parameters as the service keeps them. The SDKs' rules (docs/api.md#rules,
 * sdk/conformance/parameters.json) are enforced again here, because a server-to-server caller or an
 * old SDK never ran them: values are strings, finite numbers, booleans, lists and nested
 * string-keyed maps; a null value is dropped with its key, in nested maps too; nulls inside lists
 * are kept. Sizes are bounded by INGEST_LIMITS, and every violation names its path
 * (`parameters.items[3].price: …`).
 */
import { formatPath } from "../validation/issues.ts";
import { INGEST_LIMITS } from "./limits.ts";

export type ParameterValue =
  | string
  | number
  | boolean
  | null
  | readonly ParameterValue[]
  | ParameterMap;

/** A parameter map as stored: no null values (a list may still hold nulls). */
export interface ParameterMap {
  readonly [key: string]: ParameterValue;
}

export type ParametersResult =
  | {
      readonly ok: true;
      readonly parameters: ParameterMap;
      /** The kept parameters as JSON, as measured against the byte limit; null when empty. */
      readonly json: string | null;
    }
  | { readonly ok: false; readonly problems: readonly string[] };

const ROOT = "parameters";

/** What a `parameters` value that is not a map is told. */
export const PARAMETERS_MAP_RULE = "must be a map of string keys to values";

/** A JSON object: not a list, not a Date or other class instance. */
export const isPlainMap = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

const TYPE_RULE = "must be a string, a finite number, a boolean, a list or a map";

/**
 * Walks a parameter map depth first. The path of the value being looked at is one stack that
 * grows and shrinks as the walk goes, and is only formatted when a value breaks a rule: most
 * events break none, and a path copied for every key would cost more than the checks.
 */
class Walker {
  readonly problems: string[] = [];
  private readonly path: PropertyKey[] = [];

  private problem(message: string): undefined {
    this.problems.push(`${formatPath(this.path, ROOT)}: ${message}`);
    return undefined;
  }

  /** The kept form of a value, or undefined when it broke a rule (recorded in `problems`). */
  private value(value: unknown, depth: number): ParameterValue | undefined {
    if (typeof value === "string") {
      if (value.length > INGEST_LIMITS.maxParameterStringLength) {
        return this.problem(
          `is ${value.length} characters; a string may have at most ${INGEST_LIMITS.maxParameterStringLength}`,
        );
      }
      return value;
    }
    if (typeof value === "number") {
      // JSON cannot carry NaN or Infinity; a caller building values in code can.
      return Number.isFinite(value) ? value : this.problem("must be a finite number");
    }
    if (typeof value === "boolean") return value;
    if (Array.isArray(value) || isPlainMap(value)) {
      if (depth + 1 > INGEST_LIMITS.maxParameterDepth) {
        return this.problem(
          `nests lists and maps more than ${INGEST_LIMITS.maxParameterDepth} levels deep`,
        );
      }
      return Array.isArray(value) ? this.list(value, depth + 1) : this.map(value, depth + 1);
    }
    return this.problem(TYPE_RULE);
  }

  private list(items: readonly unknown[], depth: number): ParameterValue[] | undefined {
    const kept: ParameterValue[] = [];
    let failed = false;
    // An index loop, not forEach: a sparse list must not skip a check.
    for (let index = 0; index < items.length; index += 1) {
      const item = items[index];
      if (item === null) {
        kept.push(null); // positions in a list mean something, so a null stays (docs/api.md#rules)
        continue;
      }
      this.path.push(index);
      const value = this.value(item, depth);
      this.path.pop();
      if (value === undefined) failed = true;
      else kept.push(value);
    }
    return failed ? undefined : kept;
  }

  map(entries: Record<string, unknown>, depth: number): ParameterMap | undefined {
    const kept: Record<string, ParameterValue> = {};
    let failed = false;
    let count = 0;
    for (const key of Object.keys(entries)) {
      const raw = entries[key];
      if (raw === null) continue; // dropped with its key (docs/api.md#rules)
      this.path.push(key);
      let value: ParameterValue | undefined;
      if (key.length === 0 || key.length > INGEST_LIMITS.maxParameterKeyLength) {
        this.problem(`key must be 1 to ${INGEST_LIMITS.maxParameterKeyLength} characters`);
      } else if (key === "__proto__") {
        // Assigning it would set the result's prototype instead of storing a value.
        this.problem("is a reserved key");
      } else {
        count += 1;
        value = this.value(raw, depth);
      }
      this.path.pop();
      if (value === undefined) failed = true;
      else kept[key] = value;
    }
    if (count > INGEST_LIMITS.maxParameterKeys) {
      this.problem(`holds ${count} keys; a map may hold at most ${INGEST_LIMITS.maxParameterKeys}`);
      failed = true;
    }
    return failed ? undefined : kept;
  }
}

/** UTF-8 size of the parameters as JSON: what the SDK sends, minus the dropped nulls. */
export const parametersBytes = (parameters: ParameterMap): number =>
  Buffer.byteLength(JSON.stringify(parameters), "utf8");

/**
 * Checks an event's `parameters` (absent or null means none) and returns the kept copy. The
 * input is never modified. All problems are reported, so an SDK author fixes them in one go.
 */
export const sanitizeParameters = (raw: unknown): ParametersResult => {
  if (raw === undefined || raw === null) return { ok: true, parameters: {}, json: null };
  const walker = new Walker();
  if (!isPlainMap(raw)) return { ok: false, problems: [`${ROOT}: ${PARAMETERS_MAP_RULE}`] };
  const parameters = walker.map(raw, 1);
  if (parameters === undefined) return { ok: false, problems: walker.problems };
  const json = JSON.stringify(parameters);
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes > INGEST_LIMITS.maxParametersBytes) {
    return {
      ok: false,
      problems: [
        `${ROOT}: are ${bytes} bytes as JSON; at most ${INGEST_LIMITS.maxParametersBytes} (10 KiB)`,
      ],
    };
  }
  return { ok: true, parameters, json: json === "{}" ? null : json };
};
