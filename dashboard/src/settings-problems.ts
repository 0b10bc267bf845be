/**
 * The service's refusals of an app's settings as the settings form says them: each problem in
 * words under its input's label, beside the input it names.
 */
import { capitalised, moreProblems, plainMessage, problemsOf } from "./messages.ts";

/**
 * The form's inputs by name (the API's field names), each with the words its problems are
 * said in: the label without its hint.
 */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  name: "Name",
  time_zone: "Time zone",
  enabled: "App enabled",
  encryption: "Encryption",
  attribution_enabled: "Attribution enabled",
  click_window_days: "Click window",
  view_window_hours: "View window",
  probabilistic_window_hours: "Probabilistic window",
  probabilistic_android: "Probabilistic matching on Android",
  probabilistic_ios: "Probabilistic matching on iOS",
  confidence_floor: "Confidence floor",
  deep_link_confidence_floor: "Deep link confidence floor",
  app_store_id: "App Store id",
  play_package: "Google Play package",
  ios_bundle_id: "iOS bundle id",
  web_url: "Web URL",
  hosts: "Link hosts",
  apple_team_id: "Apple team id",
  android_sha256_fingerprints: "Android SHA-256 fingerprints",
  languages: "Landing page languages",
  preview_title: "Default preview title",
  preview_description: "Default preview description",
  preview_image_url: "Default preview image URL",
};

/** Paths whose last part is not the input's name. */
const FIELD_OF_PATH: Record<string, string> = {
  "encryption.enabled": "encryption",
  "attribution.enabled": "attribution_enabled",
  "attribution.probabilistic.android": "probabilistic_android",
  "attribution.probabilistic.ios": "probabilistic_ios",
};

/** `webUrl` → `web_url`: the settings' own names, which a check of them may name. */
const snakeCase = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

/**
 * The input a path of the service's 422 names, and the item of a list it names:
 * `body.attribution.click_window_days` or `attribution.click_window_days` ->
 * `click_window_days`, `links.hosts[2]` -> `hosts`, item 2, `webUrl` -> `web_url`; null for a
 * path the form has no input for.
 */
export const fieldOfPath = (path: string): { field: string; item: number | null } | null => {
  const withoutRoot = path.replace(/^(?:body|settings)(?:\.|$)/, "");
  const item = /\[(\d+)\]/.exec(withoutRoot);
  const bare = withoutRoot.replace(/\[[^\]]*\]/g, "").replace(/\.$/, "");
  const mapped = FIELD_OF_PATH[bare];
  if (mapped) return { field: mapped, item: null };
  const last = snakeCase(bare.split(".").at(-1) ?? "");
  return last in FIELD_LABELS ? { field: last, item: item?.[1] ? Number(item[1]) : null } : null;
};

/** The lists' items as the form sends them, to name the one refused by what was typed. */
export interface ListItems {
  readonly hosts: readonly string[];
  readonly android_sha256_fingerprints: readonly string[];
  readonly languages: readonly string[];
}

const PROBLEM = /^([A-Za-z_][\w.[\]"]*):\s*(.+)$/s;

/**
 * A 422's detail (`path: message; path: message`, as the service joins its problems) as the
 * form's problems, each in words under the input's label (`Web URL must be an http or https
 * URL`, `Link hosts: go_example must be a host name, like go.example.com`) and beside the input
 * it names; a problem about no input keeps the service's words, in a sentence.
 */
export const settingsProblemsOf = (detail: string, items: ListItems): Problem[] =>
  problemsOf(detail).map((problem): Problem => {
    const more = moreProblems(problem);
    if (more) return { field: null, text: more };
    const match = PROBLEM.exec(problem);
    const named = match?.[1] ? fieldOfPath(match[1]) : null;
    const message = plainMessage(match?.[2] ?? problem);
    if (!named) return { field: null, text: capitalised(plainMessage(problem)) };
    const label = FIELD_LABELS[named.field] ?? named.field;
    if (named.item === null) return { field: named.field, text: `${label} ${message}` };
    const list = items[named.field as keyof ListItems] as readonly string[] | undefined;
    const value = list?.[named.item];
    const which = value ? `“${value}”` : `line ${named.item + 1}`;
    return { field: named.field, text: `${label}: ${which} ${message}` };
  });

/**
 * The inputs whose values the service may find another app has (a 409), by how its conflict
 * begins: "App Store id 123 is app com.example.other's already: …", "Link host go.example.com
 * is another app's already: …" (one line of the hosts' input).
 */
const CONFLICT_PREFIXES = { app_store_id: "App Store id ", hosts: "Link host " } as const;

/** A 409's detail as the form's problem, beside the input whose value it names. */
export const conflictProblemOf = (detail: string): Problem => ({
  field:
    Object.entries(CONFLICT_PREFIXES).find(([, prefix]) => detail.startsWith(prefix))?.[0] ?? null,
  text: capitalised(detail),
});

/** The first problem of each input, beside it. */
export const besideByField = (problems: readonly Problem[]): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const problem of problems) {
    if (problem.field && !fields[problem.field]) fields[problem.field] = problem.text;
  }
  return fields;
};

export interface Problem {
  readonly field: string | null;
  readonly text: string;
}
