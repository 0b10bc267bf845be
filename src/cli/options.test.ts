import { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { integer, nonEmpty, unsetEmptyEnv } from "./options.ts";

describe("an integer option", () => {
  const port = integer(0, 65_535);

  it("takes plain decimal digits within its range", () => {
    expect(port("0")).toBe(0);
    expect(port("8080")).toBe(8080);
    expect(port("065535")).toBe(65_535);
  });

  it("refuses a value under its least", () => {
    const count = integer(1, 100);
    expect(count("1")).toBe(1);
    expect(() => count("0")).toThrow("must be an integer from 1 to 100.");
  });

  it("refuses an empty value, and any other spelling of a number", () => {
    for (const value of [
      "",
      " ",
      "0x1F90",
      "1e3",
      "8080.0",
      "+80",
      "-1",
      " 80",
      "80 ",
      "0b1",
      "Infinity",
      "65536",
    ]) {
      expect(() => port(value), JSON.stringify(value)).toThrow(
        "must be an integer from 0 to 65535.",
      );
    }
  });
});

describe("a text option that must name something", () => {
  it("takes any value but an empty one, or one of spaces alone", () => {
    expect(nonEmpty("/srv/attribution")).toBe("/srv/attribution");
    expect(nonEmpty("0.0.0.0")).toBe("0.0.0.0");
    for (const value of ["", " ", "\t"]) {
      expect(() => nonEmpty(value), JSON.stringify(value)).toThrow("must not be empty.");
    }
  });
});

/** A command with an option from the environment, as `start --port` (ATTRIBUTION_PORT) is. */
const portCommand = () => {
  let port: number | undefined;
  const command = new Command("cmd")
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .addOption(new Option("--port <port>").argParser(integer(0, 65_535)).env("TEST_PORT"))
    .action((options: { port?: number }) => {
      port = options.port;
    });
  return { command, port: () => port };
};

describe("an option's environment variable", () => {
  it("counts as unset when empty, so the default stands", () => {
    const { command, port } = portCommand();
    const env: NodeJS.ProcessEnv = { TEST_PORT: "", OTHER: "" };
    unsetEmptyEnv(command, env);
    expect(env).toEqual({ OTHER: "" });
    const saved = process.env.TEST_PORT;
    try {
      delete process.env.TEST_PORT;
      command.parse([], { from: "user" });
      expect(port()).toBeUndefined();
    } finally {
      if (saved !== undefined) process.env.TEST_PORT = saved;
    }
  });

  it("reaches the options of subcommands, and leaves a value that is set", () => {
    const program = new Command("program");
    program.command("start").addOption(new Option("--port <port>").env("TEST_PORT"));
    program.command("export").addOption(new Option("--url <url>").env("TEST_URL"));
    const env: NodeJS.ProcessEnv = { TEST_PORT: "8080", TEST_URL: "" };
    unsetEmptyEnv(program, env);
    expect(env).toEqual({ TEST_PORT: "8080" });
  });

  it("is refused when it is no integer, as the flag is", () => {
    const { command } = portCommand();
    const saved = process.env.TEST_PORT;
    try {
      process.env.TEST_PORT = "0x1F90";
      expect(() => command.parse([], { from: "user" })).toThrow(/must be an integer/);
    } finally {
      if (saved === undefined) delete process.env.TEST_PORT;
      else process.env.TEST_PORT = saved;
    }
    // An empty flag is refused, not taken as 0.
    expect(() => portCommand().command.parse(["--port", ""], { from: "user" })).toThrow(
      /must be an integer/,
    );
  });
});
