/**
 * A listing's page cursor on DynamoDB: the last item's keys (`LastEvaluatedKey`), as base64url
 * JSON of the fields named, handed back as the next page's start key. DynamoDB refuses a start
 * key its query could not have given (empty keys, keys that disagree, another partition's) with
 * an error of its own, which would be a 500; so a cursor is read back only under `schema`, whose
 * checks say what keys the query gives, and anything else is the caller's 422.
 */
import type * as z from "zod";
import { ValidationError } from "../../domain/errors.ts";

export const NOT_A_CURSOR = "cursor: must be the next_cursor of an earlier page";

export interface PageCursor<T> {
  encode(key: Record<string, unknown>): string;
  /** The keys of a cursor, or a ValidationError; `fits` adds the page's own bounds. */
  decode(cursor: string, fits?: (keys: T) => boolean): T;
}

export const pageCursor = <S extends z.ZodType<Record<string, string>>>(
  schema: S,
  fields: readonly (keyof z.output<S> & string)[],
): PageCursor<z.output<S>> => ({
  encode: (key) =>
    Buffer.from(
      JSON.stringify(Object.fromEntries(fields.map((field) => [field, key[field]]))),
    ).toString("base64url"),
  decode: (cursor, fits = () => true) => {
    let keys: z.output<S>;
    try {
      keys = schema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    } catch {
      throw new ValidationError(NOT_A_CURSOR);
    }
    if (!fits(keys)) throw new ValidationError(NOT_A_CURSOR);
    return keys;
  },
});
