import { Duration } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import {
  bundledPath,
  PROJECT_ROOT,
  projectFile,
  ServiceFunction,
  type ServiceFunctionProps,
} from "./service-function.ts";
import { testStack } from "./stack.test-support.ts";

const props = (assets: readonly string[]): ServiceFunctionProps => ({
  name: "config",
  memoryMb: 256,
  timeout: Duration.seconds(10),
  environment: {},
  assets,
});

describe("bundled files", () => {
  it("are named relative to the project root", () => {
    expect(projectFile(new URL("../data/ecb-eurofxref-hist.csv", import.meta.url))).toBe(
      "data/ecb-eurofxref-hist.csv",
    );
    expect(projectFile(`${PROJECT_ROOT}package.json`)).toBe("package.json");
  });

  it("must be inside the project, which is all that bundling can read", () => {
    expect(() => projectFile("/etc/hosts")).toThrow(/outside the project/);
  });

  it("land at the root of the function's asset, /var/task", () => {
    expect(bundledPath("data/ecb-eurofxref-hist.csv")).toBe("/var/task/ecb-eurofxref-hist.csv");
  });

  it("are checked at synth: a missing file fails, naming it", () => {
    expect(() => new ServiceFunction(testStack(), "Fn", props(["data/missing.csv"]))).toThrow(
      /data\/missing\.csv/,
    );
  });

  it("may not share a name: they all land in one folder", () => {
    expect(
      () => new ServiceFunction(testStack(), "Fn", props(["package.json", "test/../package.json"])),
    ).toThrow(/two files named package\.json/);
    expect(
      () => new ServiceFunction(testStack(), "Fn", props(["lambdas/entries.ts"])),
    ).not.toThrow();
  });
});
