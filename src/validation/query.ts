/**
 * The query of a route that reports or lists. Any name the route does not take is refused with
 * a 422 that lists those it does: a misspelt filter (`mediasource=`) answered as if absent would
 * read as the filtered figures, and a budget be moved on the whole app's.
 */
import * as z from "zod";
import { namedKeys } from "./issues.ts";

/**
 * The app the request is about, which a dashboard session names on any route about an app. A
 * key (or a session) acts for one app: naming another is a 404, as an app the caller may not
 * see is.
 */
export const appIdParam = z
  .string()
  .optional()
  .meta({ description: "The app; optional, and when given it must be the caller's app." });

/**
 * A whole number given in a query, within `min` to `max`, `fallback` when absent: plain decimal
 * digits only, as the export reads its own. A number's other spellings (`0x5`, `1e1`, ` 5`, `5.0`)
 * are refused, not read as 5 or 10: a caller who meant something else hears of it.
 */
export const wholeNumberParam = (bounds: {
  readonly min: number;
  readonly max: number;
  readonly fallback: number;
  readonly unit?: string;
}) => {
  const unit = bounds.unit ? ` ${bounds.unit}` : "";
  const rule = `must be a whole number${unit} from ${bounds.min} to ${bounds.max}`;
  return z.preprocess(
    // Anything but digits becomes NaN, which the number schema refuses with the rule.
    (value) => (typeof value === "string" && !/^\d+$/.test(value) ? Number.NaN : value),
    z.coerce
      .number({ error: rule })
      .int({ error: rule })
      .min(bounds.min, { error: rule })
      .max(bounds.max, { error: rule })
      .default(bounds.fallback),
  );
};

/** A query of these parameters and no other. */
export const strictQuery = <S extends z.core.$ZodLooseShape>(shape: S) => {
  const names = Object.keys(shape);
  const takes = names.length === 0 ? "it takes none" : `its parameters are ${names.join(", ")}`;
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `takes no ${namedKeys(issue.keys)}: ${takes}`
        : undefined,
  });
};

/** The query of a route about an app: its parameters and `app_id`. */
export const routeQuery = <S extends z.core.$ZodLooseShape>(shape: S) =>
  strictQuery({ app_id: appIdParam, ...shape });
