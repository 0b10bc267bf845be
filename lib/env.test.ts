import { Stack } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { exportEnv, linksEnv } from "../src/config/aws-env.ts";
import { envFor } from "./env.ts";

const valid = {
  SNAPSHOTS_TABLE: "snapshots",
  DELETIONS_TABLE: "deletions",
  ATHENA_WORKGROUP: "exports",
  GLUE_DATABASE: "lake",
  RESULTS_BUCKET: "results",
  SNAPSHOT_TTL_SECONDS: "900",
};

describe("envFor", () => {
  it("returns the variables when they satisfy the function's schema", () => {
    expect(envFor(exportEnv, valid)).toEqual(valid);
  });

  it("accepts unresolved tokens, which only CloudFormation resolves", () => {
    const stack = new Stack();
    expect(envFor(exportEnv, { ...valid, SNAPSHOTS_TABLE: stack.stackName })).toMatchObject({
      SNAPSHOTS_TABLE: stack.stackName,
    });
  });

  it("accepts a token where the variable's rule is a URL's, which its placeholder is not", () => {
    const stack = new Stack();
    const url = `https://${stack.stackName}.example.com`;
    const vars = {
      APPS_TABLE: "apps",
      LINKS_TABLE: "links",
      LINK_BASE_URL: url,
      LINK_APP_HOSTS: "",
    };
    expect(envFor(linksEnv, vars)).toEqual(vars);
    expect(() => envFor(linksEnv, { ...vars, LINK_BASE_URL: "not a url" })).toThrow(
      /LINK_BASE_URL/,
    );
  });

  it("refuses a literal the function would refuse, naming it", () => {
    expect(() => envFor(exportEnv, { ...valid, SNAPSHOT_TTL_SECONDS: "5" })).toThrow(
      /SNAPSHOT_TTL_SECONDS/,
    );
  });

  it("refuses a variable outside the contract", () => {
    const extra = { ...valid, DEBUG: "1" };
    expect(() => envFor(exportEnv, extra)).toThrow(/DEBUG/);
  });
});
