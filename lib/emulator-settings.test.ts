/**
 * The settings that leave out what an emulator lacks (lakeQueries, linkHost and dashboard
 * false, as `npm run test:localstack` deploys): no Glue, Athena, HTTP API, export and report
 * routes, purge, CloudFront or Cognito, the streams writing JSON, the outputs without them, and
 * cdk-nag still passing on the rest.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp, STACK_ID } from "./app.ts";
import { NO_LINK_HOST_URL } from "./service-stack.ts";
import {
  NO_EXIT_SYNTH,
  propertiesOf,
  sharedServiceStack,
  synthServiceStack,
} from "./stack.test-support.ts";

const LEFT_OUT = [
  "AWS::Glue::Database",
  "AWS::Glue::Table",
  "AWS::Athena::WorkGroup",
  "AWS::ApiGatewayV2::Api",
  "AWS::ApiGatewayV2::Route",
  "AWS::CloudFront::Distribution",
  "AWS::Cognito::UserPool",
];

const count = (template: ReturnType<typeof synthServiceStack>["template"], type: string) =>
  Object.keys(template.findResources(type)).length;

describe("the stack for an emulator without Glue, Athena and HTTP APIs", () => {
  const full = sharedServiceStack();
  const bare = synthServiceStack({
    settings: { lakeQueries: false, linkHost: false, dashboard: false },
  });

  it("has by default what the settings leave out", () => {
    for (const type of LEFT_OUT) expect(count(full.template, type), type).toBeGreaterThan(0);
    expect(Object.keys(full.stack.api.routeFunctions)).toContain("export");
  });

  it("leaves out the Glue catalog, the Athena workgroup and the link host's HTTP API", () => {
    for (const type of LEFT_OUT) expect(count(bare.template, type), type).toBe(0);
  });

  it("leaves out the export route and the purge, and says why when one is asked for", () => {
    expect(Object.keys(bare.stack.api.routeFunctions)).not.toContain("export");
    expect(Object.keys(bare.stack.api.routeFunctions)).toContain("installs");
    expect(() => bare.stack.queries).toThrow(/lakeQueries/);
    expect(() => bare.stack.purge).toThrow(/lakeQueries/);
    expect(() => bare.stack.linkHost).toThrow(/linkHost/);
  });

  it("leaves out the reports, the dashboard's site and user pool, and the routes that check a password", () => {
    const routes = Object.keys(bare.stack.api.routeFunctions);
    expect(routes).not.toContain("report-overview");
    expect(routes).not.toContain("sign-in");
    expect(routes).toContain("list-apps");
    expect(() => bare.stack.dashboard).toThrow(/dashboard/);
    expect(() => bare.stack.dashboardUsers).toThrow(/dashboard/);
    // And the job that ends the sessions of people disabled in the pool, which lists them.
    const job = (template: typeof full.template) =>
      Object.keys(template.findResources("AWS::Lambda::Function")).filter((id) =>
        id.startsWith("DisabledAccountsJob"),
      );
    expect(job(full.template)).toHaveLength(1);
    expect(job(bare.template)).toEqual([]);
    const policies = JSON.stringify(
      Object.entries(full.template.findResources("AWS::IAM::Policy")).filter(([id]) =>
        id.startsWith("DisabledAccountsJob"),
      ),
    );
    expect(policies).toContain("cognito-idp:ListUsers");
    expect(policies).not.toContain("cognito-idp:AdminDeleteUser");
  });

  it("keeps the streams, which write records as JSON, without Parquet conversion", () => {
    const streams = Object.values(
      bare.template.findResources("AWS::KinesisFirehose::DeliveryStream"),
    );
    expect(streams.length).toBe(count(full.template, "AWS::KinesisFirehose::DeliveryStream"));
    for (const stream of streams) {
      const destination = propertiesOf(stream).ExtendedS3DestinationConfiguration as Record<
        string,
        unknown
      >;
      expect(destination.DataFormatConversionConfiguration).toBeUndefined();
      expect(destination.DynamicPartitioningConfiguration).toBeDefined();
    }
  });

  it("names no link host in new links, and outputs nothing it left out", () => {
    const variables = bare.stack.resolve(
      bare.template.toJSON().Resources[
        bare.stack.getLogicalId(
          bare.stack.api.routeFunctions["create-link"]?.function.node.defaultChild as never,
        )
      ],
    );
    expect(JSON.stringify(variables)).toContain(NO_LINK_HOST_URL);
    const outputs = Object.keys(bare.template.toJSON().Outputs ?? {});
    for (const name of ["ApiUrl", "AppsTableName", "KeysTableName", "LinksTableName"]) {
      expect(outputs).toContain(name);
    }
    for (const name of ["LinkHostUrl", "GlueDatabaseName", "AthenaWorkGroupName"]) {
      expect(outputs).not.toContain(name);
    }
  });

  it("is what the app makes from `-c lakeQueries=false -c linkHost=false -c dashboard=false`, cdk-nag passing", () => {
    const outdir = mkdtempSync(join(tmpdir(), "attribution-emulator-synth-"));
    try {
      const { app } = createApp({
        ...NO_EXIT_SYNTH,
        outdir,
        context: {
          lakeQueries: "false",
          linkHost: "false",
          dashboard: "false",
          "aws:cdk:bundling-stacks": [],
        },
      });
      const template = app.synth().getStackByName(STACK_ID).template as {
        Resources: Record<string, { Type: string }>;
      };
      const types = new Set(Object.values(template.Resources).map((r) => r.Type));
      for (const type of LEFT_OUT) expect(types.has(type), type).toBe(false);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
