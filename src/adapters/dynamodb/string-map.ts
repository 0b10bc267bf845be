/**
 * Maps whose keys come from outside (a link's parameters, a tapped URL's query), stored as
 * JSON text. The document client cannot marshal a map holding a key such as `constructor`,
 * and a key such as `__proto__` is lost by any code that assigns it; JSON text keeps every key,
 * and `stringMapItem` reads them back as own properties.
 */
import * as z from "zod";

export const stringMapText = (map: Readonly<Record<string, string>>): string => JSON.stringify(map);

export const stringMapItem = z.string().transform((text, context): Record<string, string> => {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    context.addIssue({ code: "custom", message: "must be a JSON object" });
    return z.NEVER;
  }
  // fromEntries defines each key, `__proto__` included, as the map's own.
  return Object.fromEntries(
    Object.entries(parsed).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
});
