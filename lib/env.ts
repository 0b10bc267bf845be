/**
 * The stack's side of the environment contract in src/config/aws-env.ts: a function's
 * environment is typed from its zod schema, so the stack sets exactly the names the function
 * parses, and checked against that schema at synth, so a literal bad value fails here rather
 * than at the function's first cold start.
 */
import { Token } from "aws-cdk-lib";
import type { z } from "zod";
import { formatIssues } from "../src/validation/issues.ts";

/** Every variable of a schema, each a string (CloudFormation values are strings or tokens). */
export type EnvVars<S extends z.ZodObject> = { readonly [K in keyof z.output<S>]-?: string };

export const envFor = <S extends z.ZodObject>(
  schema: S,
  vars: EnvVars<S>,
): Record<string, string> => {
  const extra = Object.keys(vars).filter((key) => !(key in schema.shape));
  if (extra.length > 0) throw new Error(`Not in the environment contract: ${extra.join(", ")}`);
  // Only literal values can be checked here: a token (a table's name, an API's URL) is known
  // at deployment, and its placeholder text need not fit the variable's rule.
  const literal = Object.fromEntries(
    Object.entries(vars).filter(([, value]) => !Token.isUnresolved(value)),
  );
  const result = schema.partial().safeParse(literal);
  if (!result.success) {
    throw new Error(
      `Invalid function environment: ${formatIssues(result.error.issues, "environment")}`,
    );
  }
  return { ...vars };
};
