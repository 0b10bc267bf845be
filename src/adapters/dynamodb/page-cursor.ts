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
  /**
   * A page of at most `limit` items from a query that asked for `limit + 1` (`Limit`), and the
   * next page's cursor. The one more says whether another page follows: DynamoDB gives a
   * `LastEvaluatedKey` whenever it stopped at its Limit, which on a full last page would lead to
   * an empty one. A query that stopped short of that (its 1 MB, a filter) goes on from its key.
   */
  page<I extends Record<string, unknown>>(
    items: readonly I[] | undefined,
    lastEvaluatedKey: Record<string, unknown> | undefined,
    limit: number,
  ): { readonly items: I[]; readonly next: string | null };
  /** The keys of a cursor, or a ValidationError; `fits` adds the page's own bounds. */
  decode(cursor: string, fits?: (keys: T) => boolean): T;
}

export const pageCursor = <S extends z.ZodType<Record<string, string>>>(
  schema: S,
  fields: readonly (keyof z.output<S> & string)[],
): PageCursor<z.output<S>> => {
  const encode = (key: Record<string, unknown>) =>
    Buffer.from(
      JSON.stringify(Object.fromEntries(fields.map((field) => [field, key[field]]))),
    ).toString("base64url");
  return {
    encode,
    page: (items = [], lastEvaluatedKey, limit) => {
      const last = items[limit - 1];
      if (items.length > limit && last) return { items: items.slice(0, limit), next: encode(last) };
      return { items: [...items], next: lastEvaluatedKey ? encode(lastEvaluatedKey) : null };
    },
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
  };
};
