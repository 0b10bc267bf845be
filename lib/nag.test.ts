/**
 * cdk-nag 3 is a policy-validation plugin, not an Aspect: findings are not Annotations but a
 * report. The pack is run directly on the synthesized app, as `cdk synth` runs it.
 */
import { Stack, Validations } from "aws-cdk-lib";
import { Bucket } from "aws-cdk-lib/aws-s3";
import { AwsSolutionsChecks } from "cdk-nag";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServiceStack } from "./service-stack.ts";
import { isJson, sharedServiceStack, testApp } from "./stack.test-support.ts";

let stack: ServiceStack;

beforeAll(() => {
  ({ stack } = sharedServiceStack());
});

describe("cdk-nag AwsSolutions", () => {
  it("reports no unacknowledged error or warning", () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack);
    const findings = report.violations.map(
      (v) =>
        `${v.ruleName} at ${v.violatingResources.map((r) => r.resourceLogicalId).join(", ")}: ${v.description}`,
    );
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it("is live: an unprotected bucket is reported", () => {
    const probe = new Stack(testApp(), "Probe");
    new Bucket(probe, "Plain");
    const report = new AwsSolutionsChecks().validateScope(probe);
    expect(report.violations.map((v) => v.ruleName)).toEqual(
      expect.arrayContaining(["AwsSolutions-S1", "AwsSolutions-S10"]),
    );
  });

  it("gives every acknowledgement a reason", () => {
    const acknowledgements = stack.node
      .findAll()
      .flatMap((c) => c.node.metadata)
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => (isJson(entry.data) ? Object.entries(entry.data) : []));
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const [id, reason] of acknowledgements) {
      expect(id).toMatch(/AwsSolutions-/);
      expect(typeof reason === "string" && reason.length >= 40, `${id}: ${reason}`).toBe(true);
    }
  });
});
