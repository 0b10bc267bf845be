/**
 * The query parameters of a paged listing, one shape for every route that pages: `limit` (a
 * whole number within the route's bounds, its default when absent) and `cursor` (the page
 * before's `next_cursor`).
 */
import * as z from "zod";
import { wholeNumberParam } from "../validation/query.ts";

export const limitParam = (what: string, bounds: { defaultLimit: number; maxLimit: number }) =>
  wholeNumberParam({ min: 1, max: bounds.maxLimit, fallback: bounds.defaultLimit }).meta({
    description: `${what} per page, 1 to ${bounds.maxLimit}.`,
    example: bounds.defaultLimit,
  });

export const cursorParam = () =>
  z
    .string()
    .min(1, { error: "must not be empty" })
    .max(1_000)
    .optional()
    .meta({ description: "The `next_cursor` of the page before; none for the first page." });

/** `limit` and `cursor`, as an object to spread into a route's query schema. */
export const pageParams = (what: string, bounds: { defaultLimit: number; maxLimit: number }) => ({
  limit: limitParam(what, bounds),
  cursor: cursorParam(),
});
