/**
 * A route's query, each parameter given once. API Gateway's single-value map (and the embedded
 * gateway's, built the same way) keeps a repeated name's last value, so `limit=0&limit=5` would
 * be answered as a page of 5, though one of its limits is out of range, and
 * `campaign=A&campaign=B` as campaign B's figures alone, read as both's: a repeat of a parameter
 * the route reads is refused instead (422), naming it, on both runtimes alike.
 */
import { ValidationError } from "../domain/errors.ts";
import { namedKeys } from "../validation/issues.ts";

export interface QueryEvent {
  readonly queryStringParameters?: Readonly<Record<string, string | undefined>> | null;
  readonly multiValueQueryStringParameters?: Readonly<
    Record<string, readonly string[] | undefined>
  > | null;
}

/**
 * The single-value query, once no parameter of `names` (every parameter, without it) is given
 * more than once. A route that ignores the parameters it does not know passes its own names,
 * so that a repeat of one it ignores stays ignored.
 */
export const queryOnce = (
  event: QueryEvent,
  names?: readonly string[],
): Readonly<Record<string, string | undefined>> => {
  const multi = event.multiValueQueryStringParameters ?? {};
  const repeated = Object.keys(multi).filter(
    (name) => (multi[name]?.length ?? 0) > 1 && (names === undefined || names.includes(name)),
  );
  if (repeated.length > 0) {
    throw new ValidationError(
      `query: gives ${namedKeys(repeated)} more than once: give each parameter once`,
    );
  }
  return event.queryStringParameters ?? {};
};
