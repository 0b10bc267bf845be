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

/**
 * The environment with the service's empty settings left out: `ATTRIBUTION_PORT=` is no
 * setting, so its default holds (the embedded runtime and the CLI; a Lambda's environment is
 * the stack's own).
 */
export const setSettingsOnly = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(env).filter(
      ([name, value]) => !(name.startsWith("ATTRIBUTION_") && value === ""),
    ),
  );
