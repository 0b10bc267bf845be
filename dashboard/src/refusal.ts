/**
 * A report's or the cost rows' refusal of a question (a 422: src/reports/params.ts, the cost
 * routes) in words: a problem of its dates said as one, a filter's named as that filter's, the
 * cost rows' limit said plainly. The service names each problem by its query parameter
 * (`from: …`, `media_source: …`) and joins them with "; ".
 */
import { ApiError, errorMessage } from "./api.ts";
import { formatCount } from "./format.ts";
import { problemsOf } from "./messages.ts";

/** The query parameters that are the range's dates, as a sentence names them. */
const DATES: Readonly<Record<string, string>> = { from: "The start date", to: "The end date" };

/** The query parameters that are filters (and the grouping), as a sentence names them. */
const FILTERS: Readonly<Record<string, string>> = {
  media_source: "The media source filter",
  campaign: "The campaign filter",
  country: "The country filter",
  platform: "The platform filter",
  group_by: "Group by",
};

/** GET /v1/costs of a range with more rows than one answer lists (src/http/handlers/costs.ts). */
const COST_ROW_LIMIT =
  /^to: the window holds (\d+) cost rows, more than the (\d+) one answer lists; ask for fewer days\.?$/;

/** A problem as a sentence: its first letter capital, one full stop. */
const sentence = (text: string): string => {
  const trimmed = text.trim().replace(/\.$/, "");
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}.`;
};

/** `from` and `to` as the page names them, in the middle of a problem. */
const datesNamed = (text: string): string =>
  text.replace(/`from`/g, "the start date").replace(/`to`/g, "the end date");

/** The service's refusal of a range or its filters, should it refuse one the page let through. */
export const refusalOf = (caught: unknown): string => {
  if (!(caught instanceof ApiError) || caught.status !== 422) return errorMessage(caught);
  const detail = (caught.detail || caught.error).trim();
  const limit = COST_ROW_LIMIT.exec(detail);
  if (limit) {
    return `This range holds ${formatCount(Number(limit[1]))} cost rows, more than the ${formatCount(Number(limit[2]))} the page can list at once. Choose fewer days.`;
  }
  const dates: string[] = [];
  const others: string[] = [];
  for (const problem of problemsOf(detail)) {
    const named = /^([a-z_]+):\s*(.*)$/s.exec(problem);
    const parameter = named?.[1] ?? "";
    const words = named?.[2] ?? problem;
    const date = DATES[parameter];
    const filter = FILTERS[parameter];
    if (date) dates.push(sentence(`${date} ${datesNamed(words)}`));
    else if (filter) others.push(sentence(`${filter} ${words}`));
    // "and 2 more": of the problems before it, whichever they are.
    else if (/^and \d+ more$/.test(problem)) others.push(sentence(problem));
    else others.push(sentence(datesNamed(problem)));
  }
  const said = dates.length > 0 ? ["These dates cannot be shown.", ...dates] : [];
  return [...said, ...others].join(" ");
};
