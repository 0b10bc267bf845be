/**
 * Environment contract between the CDK app and the Lambda functions. The stack sets exactly
 * these names; each function parses its own schema once at start-up and fails fast on a bad one.
 */
import { z } from "zod";

const name = z.string().min(1);

export const authorizerEnv = z.object({
  APPS_TABLE: name,
  KEYS_TABLE: name,
});

export const exportEnv = z.object({
  SNAPSHOTS_TABLE: name,
  ATHENA_WORKGROUP: name,
  GLUE_DATABASE: name,
  SNAPSHOT_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
});

export const configEnv = z.object({
  APPS_TABLE: name,
});

export type ConfigEnv = z.infer<typeof configEnv>;
export type AuthorizerEnv = z.infer<typeof authorizerEnv>;
export type ExportEnv = z.infer<typeof exportEnv>;

/** Parses an environment, naming every bad variable in the error. */
export const parseEnv = <T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.infer<T> => {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment: ${problems.join("; ")}`);
  }
  return result.data;
};
