/** How the command line reads its options' values, from flags and from the environment. */
import { type Command, InvalidArgumentError } from "commander";

/**
 * An integer option's parser: plain decimal digits within [min, max]. Number() would also take
 * "" (as 0: `--port ""` a random port), "0x1F90" or "1e3", none of which anyone means as a count
 * or a port.
 */
export const integer = (min: number, max: number) => (value: string) => {
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new InvalidArgumentError(`must be an integer from ${min} to ${max}.`);
  }
  return parsed;
};

/**
 * A text option's parser that refuses an empty value (or one of spaces alone): `--data-dir ""`
 * would be the folder the command runs in, `--host ""` every address of the machine, and
 * `--url ""` the service running on the data folder, none of which an empty value says.
 */
export const nonEmpty = (value: string): string => {
  if (value.trim() === "") throw new InvalidArgumentError("must not be empty.");
  return value;
};

/**
 * Removes from `env` every option's variable that is set but empty (`ATTRIBUTION_PORT=`), so
 * that it counts as unset, as a shell script's empty variable is meant: the option's default
 * stands rather than "" being read as a value, here and by the configuration that reads the
 * same variables.
 */
export const unsetEmptyEnv = (command: Command, env: NodeJS.ProcessEnv = process.env): void => {
  for (const option of command.options) {
    if (option.envVar !== undefined && env[option.envVar] === "") delete env[option.envVar];
  }
  for (const subcommand of command.commands) unsetEmptyEnv(subcommand, env);
};

/** The variables the options of `command` and of its subcommands are read from. */
export const optionVariables = (command: Command): string[] => [
  ...command.options.flatMap((option) => (option.envVar === undefined ? [] : [option.envVar])),
  ...command.commands.flatMap(optionVariables),
];
