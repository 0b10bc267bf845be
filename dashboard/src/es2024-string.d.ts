/**
 * ES2024's well-formed Unicode strings, which the cost rows' schema (src/costs/cost-requests.ts,
 * through src/validation/text.ts) checks names by: the Cost page checks a file's rows by the
 * service's own schema before it sends any. The browsers the dashboard runs in have it (Chromium
 * 111, Firefox 119, Safari 16.4), while its library stays ES2022 for the rest of the bundle.
 */
interface String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}
