/**
 * The shape of an AWS adapter provider: one module per kind of dependency (./dynamodb-stores.ts
 * for tables, ./firehose-streams.ts for streams, and so on), each building, from a function's
 * parsed environment, the adapters its manifest row names of that kind. An entry imports only
 * the providers of the kinds its row uses, so a bundle holds no adapter it does not call.
 */
import type { AllAdapters } from "../functions/adapters.ts";
import type { Uses } from "../functions/uses.ts";

/** A function's environment as ../functions/env.ts parsed it. */
export type ParsedEnv = Readonly<Record<string, unknown>>;

export type Provider = (
  env: ParsedEnv,
  uses: Uses,
) => Partial<AllAdapters> | Promise<Partial<AllAdapters>>;

/** The kinds of `uses` whose adapters a provider module builds (the rest come from the env). */
export type ProvidedKind = Exclude<keyof Uses, "linkHost" | "settings">;

/** A variable the environment's schema required: always set once parsing succeeded. */
export const variable = (env: ParsedEnv, name: string): string => {
  const value = env[name];
  if (typeof value !== "string") throw new Error(`${name} is not set`);
  return value;
};

/** A variable the schema leaves optional. */
export const optionalVariable = (env: ParsedEnv, name: string): string | undefined => {
  const value = env[name];
  return typeof value === "string" ? value : undefined;
};
