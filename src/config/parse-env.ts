/**
 * Parsing an environment with its zod schema, once at start-up: a bad value fails fast, and the
 * error names every bad variable. The Lambda entries and the embedded runtime both use it.
 */
import type * as z from "zod";
import { formatIssues } from "../validation/issues.ts";

/** Parses an environment, naming every bad variable in the error. */
export const parseEnv = <T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.infer<T> => {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new Error(`Invalid environment: ${formatIssues(result.error.issues, "environment")}`);
  }
  return result.data;
};
