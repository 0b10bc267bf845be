/**
 * Text as the stores, the lake and the query engines can hold it, refused with a 422 naming why
 * rather than taken and failing later (a 500, or a file of the lake no reader decodes).
 */
import type * as z from "zod";

/**
 * Whole Unicode text: half a UTF-16 surrogate pair (`"\ud800"` in JSON) is text JSON carries but
 * no reader of the lake's files decodes.
 */
export const unicodeText = <T extends z.ZodType<string>>(schema: T) =>
  schema.refine((value) => value.isWellFormed(), {
    error: "must be Unicode text: it holds a lone surrogate",
  });

/**
 * A control character (C0, DEL, C1): in no name a network, a campaign or a country has, and a
 * NUL ends a string in the engines' SQL parser, which would fail a whole report.
 */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** True when `value` holds a control character: what `withoutControlCharacters` refuses. */
export const hasControlCharacter = (value: string): boolean => CONTROL_CHARACTER.test(value);

/** Text a person or a network named, refused when it holds a control character. */
export const withoutControlCharacters = <T extends z.ZodType<string>>(schema: T) =>
  schema.refine((value) => !hasControlCharacter(value), {
    error: "must not contain control characters",
  });
