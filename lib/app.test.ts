/**
 * The app as `cdk synth` builds it: real esbuild bundles of the Lambda entries and the
 * cdk-nag plugin, which fails synthesis on any unacknowledged finding.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { Template } from "aws-cdk-lib/assertions";
import { Bucket } from "aws-cdk-lib/aws-s3";
import type { CloudAssembly } from "aws-cdk-lib/cx-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestEnv } from "../src/config/aws-env.ts";
import { API_FUNCTIONS } from "../src/functions/manifest.ts";
import { LINK_HOST_ROUTES } from "../src/http/routes.ts";
import { AWS_JOBS } from "../src/jobs/jobs.ts";
import { TABLE_STREAM_WORKERS } from "../src/workers/table-stream-workers.ts";
import { WORKERS } from "../src/workers/workers.ts";
import { createApp, EDGE_STACK_ID, STACK_ID } from "./app.ts";
import { PROJECT_ROOT } from "./service-function.ts";
import { INGEST_DATA, type ServiceStack } from "./service-stack.ts";
import { DEFAULT_SETTINGS } from "./settings.ts";
import { NO_EXIT_SYNTH } from "./stack.test-support.ts";

/** The budget for one function's JavaScript (index.mjs, minified). */
const MAX_BUNDLE_BYTES = 1024 * 1024;

let outdir: string;
let assembly: CloudAssembly;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), "attribution-synth-"));
  assembly = createApp({ ...NO_EXIT_SYNTH, outdir }).app.synth();
});

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

const isJson = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

interface Bundle {
  readonly id: string;
  readonly dir: string;
  readonly code: string;
  readonly environment: Json;
}

const lambdaBundles = (): Bundle[] => {
  const template: { Resources: Record<string, { Type: string; Properties: Json }> } =
    assembly.getStackByName(STACK_ID).template;
  return (
    Object.entries(template.Resources)
      .filter(([, r]) => r.Type === "AWS::Lambda::Function")
      // The service's own functions; CDK's deploy-time copy of the dashboard's files is Python.
      .filter(([, r]) => String(r.Properties.Runtime).startsWith("nodejs"))
      .map(([id, r]) => {
        // The asset's key is `<hash>.zip`; its staged directory is `asset.<hash>`.
        const code = r.Properties.Code;
        const key = isJson(code) ? code.S3Key : undefined;
        if (typeof key !== "string") throw new Error(`${id} has no asset`);
        const dir = join(outdir, `asset.${key.replace(/\.zip$/, "")}`);
        const env = r.Properties.Environment;
        const variables = isJson(env) && isJson(env.Variables) ? env.Variables : {};
        return {
          id,
          dir,
          code: readFileSync(join(dir, "index.mjs"), "utf8"),
          environment: variables,
        };
      })
  );
};

describe("cdk synth", () => {
  it("runs the cdk-nag plugin: an unacknowledged finding fails synthesis", () => {
    const probeOut = mkdtempSync(join(tmpdir(), "attribution-nag-"));
    try {
      const { app, stack } = createApp({
        ...NO_EXIT_SYNTH,
        outdir: probeOut,
        context: { "aws:cdk:bundling-stacks": [] },
      });
      new Bucket(stack, "Unprotected");
      expect(() => app.synth()).toThrow(/AwsSolutions-S1/);
    } finally {
      rmSync(probeOut, { recursive: true, force: true });
    }
  });

  it("trusts the edge's viewer-country header only when the context says a CloudFront is in front", () => {
    const trusted = (context: Record<string, unknown>) => {
      const { stack } = createApp({
        ...NO_EXIT_SYNTH,
        context: { "aws:cdk:bundling-stacks": [], ...context },
      });
      const functions = Template.fromStack(stack).findResources("AWS::Lambda::Function");
      return [
        ...new Set(
          Object.values(functions).flatMap((fn) => {
            const value = fn.Properties?.Environment?.Variables?.TRUST_VIEWER_COUNTRY;
            return value === undefined ? [] : [value];
          }),
        ),
      ];
    };
    expect(trusted({})).toEqual(["false"]);
    expect(trusted({ trustViewerCountry: "true" })).toEqual(["true"]);
    expect(trusted({ trustViewerCountry: true })).toEqual(["true"]);
    expect(() => trusted({ trustViewerCountry: "yes" })).toThrow();
  });

  it("protects the stack from deletion unless the context turns it off (an emulator's)", () => {
    const protectedBy = (context: Record<string, unknown>) =>
      createApp({ ...NO_EXIT_SYNTH, context: { "aws:cdk:bundling-stacks": [], ...context } }).stack
        .terminationProtection;
    expect(protectedBy({})).toBe(true);
    expect(protectedBy({ terminationProtection: "false" })).toBe(false);
  });

  it("serves the link host on the domain the context names, with its two certificates", () => {
    const templateOf = (context: Record<string, unknown>) =>
      Template.fromStack(
        createApp({ ...NO_EXIT_SYNTH, context: { "aws:cdk:bundling-stacks": [], ...context } })
          .stack,
      );
    const domainOf = (context: Record<string, unknown>) =>
      templateOf(context).findResources("AWS::ApiGatewayV2::DomainName");
    expect(domainOf({})).toEqual({});
    const certificate = "arn:aws:acm:eu-west-1:123456789012:certificate/link-host";
    const edge = "arn:aws:acm:us-east-1:123456789012:certificate/link-host-edge";
    const context = {
      linkDomain: "go.example.com",
      linkCertificateArn: certificate,
      linkEdgeCertificateArn: edge,
    };
    expect(Object.values(domainOf(context))).toEqual([
      expect.objectContaining({
        Properties: expect.objectContaining({
          DomainName: "go.example.com",
          DomainNameConfigurations: [expect.objectContaining({ CertificateArn: certificate })],
        }),
      }),
    ]);
    expect(
      JSON.stringify(templateOf(context).findResources("AWS::CloudFront::Distribution")),
    ).toContain(edge);
    expect(() => domainOf({ linkDomain: "go.example.com" })).toThrow(/linkCertificateArn/);
    // CloudFront takes certificates from us-east-1 only: one there serves both.
    expect(() => domainOf({ ...context, linkEdgeCertificateArn: undefined })).toThrow(
      /linkEdgeCertificateArn/,
    );
    expect(() => domainOf({ ...context, linkEdgeCertificateArn: certificate })).toThrow(
      /us-east-1/,
    );
    const inUsEast1 = { linkDomain: "go.example.com", linkCertificateArn: edge };
    expect(Object.keys(domainOf(inUsEast1))).toHaveLength(1);
  });

  it("serves the apps' own link hosts beside the link domain: an alias of the distribution and a domain of the API each", () => {
    const templateOf = (context: Record<string, unknown>) =>
      Template.fromStack(
        createApp({ ...NO_EXIT_SYNTH, context: { "aws:cdk:bundling-stacks": [], ...context } })
          .stack,
      );
    const context = {
      linkDomain: "go.example.com",
      linkCertificateArn: "arn:aws:acm:us-east-1:123456789012:certificate/link-host",
      linkAppHosts: "Go.Brand.com, go.other.example",
    };
    const template = templateOf(context);
    const domains = Object.values(template.findResources("AWS::ApiGatewayV2::DomainName")).map(
      (resource) => resource.Properties.DomainName,
    );
    expect(domains.sort()).toEqual(["go.brand.com", "go.example.com", "go.other.example"]);
    expect(Object.keys(template.findResources("AWS::ApiGatewayV2::ApiMapping"))).toHaveLength(3);
    const [distribution] = Object.values(template.findResources("AWS::CloudFront::Distribution"));
    expect(distribution?.Properties.DistributionConfig.Aliases).toEqual([
      "go.example.com",
      "go.brand.com",
      "go.other.example",
    ]);
    // The admin commands read them from this output (ATTRIBUTION_AWS_LINK_APP_HOSTS).
    expect(template.toJSON().Outputs.LinkAppHosts.Value).toBe("go.brand.com,go.other.example");
    expect(templateOf({}).toJSON().Outputs.LinkAppHosts.Value).toBe("none");
    expect(() => templateOf({ linkAppHosts: "go.brand.com" })).toThrow(
      /linkAppHosts needs linkDomain/,
    );
    expect(() => templateOf({ ...context, linkAppHosts: "go.brand.com,go.example.com" })).toThrow(
      /each host once, and not linkDomain itself/,
    );
    expect(() => templateOf({ ...context, linkAppHosts: "not a host" })).toThrow(/host name/);
  });

  it("serves the API on the domain the context names, with its certificate, both or neither", () => {
    const domainOf = (context: Record<string, unknown>) =>
      Template.fromStack(
        createApp({ ...NO_EXIT_SYNTH, context: { "aws:cdk:bundling-stacks": [], ...context } })
          .stack,
      ).findResources("AWS::ApiGateway::DomainName");
    expect(domainOf({})).toEqual({});
    const certificate = "arn:aws:acm:eu-west-1:123456789012:certificate/api";
    expect(
      Object.values(domainOf({ apiDomain: "api.example.com", apiCertificateArn: certificate })),
    ).toEqual([
      expect.objectContaining({
        Properties: expect.objectContaining({
          DomainName: "api.example.com",
          RegionalCertificateArn: certificate,
        }),
      }),
    ]);
    expect(() => domainOf({ apiDomain: "api.example.com" })).toThrow(/apiCertificateArn/);
    expect(() => domainOf({ apiCertificateArn: certificate })).toThrow(/apiDomain/);
    expect(() => domainOf({ apiDomain: "not a host", apiCertificateArn: certificate })).toThrow(
      /host name/,
    );
  });

  it("reads the limits from the context: JSON on the command line, objects in cdk.json", () => {
    const withContext = (context: Record<string, unknown>) =>
      createApp({ ...NO_EXIT_SYNTH, context: { "aws:cdk:bundling-stacks": [], ...context } }).stack;
    const methodRate = (stack: ServiceStack, path: string) => {
      const [stage] = Object.values(
        Template.fromStack(stack).findResources("AWS::ApiGateway::Stage"),
      );
      return stage?.Properties.MethodSettings.find(
        (m: { ResourcePath: string }) => m.ResourcePath === path,
      )?.ThrottlingRateLimit;
    };
    expect(methodRate(withContext({ apiPeak: '{"sdk":1500}' }), "/~1v1~1events")).toBe(1500);
    expect(methodRate(withContext({ apiPeak: { sdk: 1200 } }), "/~1v1~1events")).toBe(1200);
    // The kinds left out keep their defaults.
    expect(methodRate(withContext({ apiPeak: '{"sdk":1500}' }), "/~1api~1v1~1export")).toBe(
      DEFAULT_SETTINGS.apiPeak.export,
    );
    expect(() => withContext({ apiPeak: '{"sdkk":1}' })).toThrow();
    expect(() => withContext({ apiPeak: "{not json" })).toThrow(/JSON/);
    const reserved = withContext({ reservedConcurrency: '{"tap":25}' });
    const functions = Template.fromStack(reserved).findResources("AWS::Lambda::Function");
    expect(
      Object.values(functions)
        .map((fn) => fn.Properties.ReservedConcurrentExecutions)
        .filter((n) => n !== undefined),
    ).toEqual([25]);
  });

  it("gives the distributions the CloudFront web ACL the context names, and makes one only when asked", () => {
    const acl = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/attribution/0123";
    const { stack, edge } = createApp({
      ...NO_EXIT_SYNTH,
      context: { "aws:cdk:bundling-stacks": [], edgeWebAclArn: acl },
    });
    const distributions = Template.fromStack(stack).findResources("AWS::CloudFront::Distribution");
    for (const distribution of Object.values(distributions)) {
      expect(distribution.Properties.DistributionConfig.WebACLId).toBe(acl);
    }
    expect(edge).toBeUndefined();
    // A regional ACL cannot guard CloudFront.
    expect(() =>
      createApp({
        ...NO_EXIT_SYNTH,
        context: {
          "aws:cdk:bundling-stacks": [],
          edgeWebAclArn: "arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/x/0123",
        },
      }),
    ).toThrow(/CLOUDFRONT-scope/);
    const asked = createApp({
      ...NO_EXIT_SYNTH,
      context: { "aws:cdk:bundling-stacks": [], edgeWebAclStack: "true" },
    });
    expect(asked.edge?.stackName).toBe(EDGE_STACK_ID);
    expect(asked.edge?.region).toBe("us-east-1");
  });

  it("synthesizes with no unacknowledged cdk-nag finding", () => {
    const report = JSON.parse(readFileSync(join(outdir, "validation-report.json"), "utf8"));
    const failures = report.pluginReports.filter(
      (r: { conclusion: string }) => r.conclusion !== "success",
    );
    expect(failures).toEqual([]);
  });

  it("bundles each function as one ESM file exporting handler, the AWS SDK left to the runtime", () => {
    const bundles = lambdaBundles();
    // One function per ungrouped route and per route group of the API, per route of the link
    // host, per queue-driven worker and per table-stream worker, per job with an AWS schedule,
    // the authorizer and the link host's origin check.
    expect(bundles).toHaveLength(
      API_FUNCTIONS.length +
        LINK_HOST_ROUTES.length +
        WORKERS.length +
        TABLE_STREAM_WORKERS.length +
        AWS_JOBS.length +
        2,
    );
    for (const { id, code } of bundles) {
      expect(code, id).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
      // Every function but the public contract and the origin check (a header against its
      // environment) talks to AWS through the runtime's SDK.
      if (!id.startsWith("ApiOpenapi") && !id.startsWith("LinkHostOriginCheck")) {
        expect(code, id).toMatch(/from\s*["']@aws-sdk\//);
      }
      expect(code, id).not.toContain("@smithy/core");
      expect(code, id).toContain("createRequire");
    }
  });

  it(`keeps each function's JavaScript under ${MAX_BUNDLE_BYTES} bytes, minified`, () => {
    const bundles = lambdaBundles();
    for (const { id, dir } of bundles) {
      const size = statSync(join(dir, "index.mjs")).size;
      expect(size, id).toBeLessThan(MAX_BUNDLE_BYTES);
      // No source map or metafile rides along.
      expect(
        readdirSync(dir).filter((f) => f.endsWith(".map") || f.endsWith(".json")),
        id,
      ).toEqual([]);
    }
  });

  it("ships the data files inside each ingestion function's asset, where its env says", () => {
    // The three ingestion routes, and POST /v1/touches, whose touches' cost goes to the lake in
    // USD too.
    const both = lambdaBundles().filter(
      (b) => "FX_RATES_FILE" in b.environment && "GEOIP_DB_FILE" in b.environment,
    );
    expect(both).toHaveLength(4);
    const ingestion = both.filter((b) => "EVENTS_STREAM" in b.environment);
    expect(ingestion).toHaveLength(3);
    for (const { id, environment } of ingestion) {
      expect(Object.keys(environment).sort(), id).toEqual(Object.keys(ingestEnv.shape).sort());
    }
    for (const { id, dir, environment } of both) {
      const shipped = [
        [environment.FX_RATES_FILE, INGEST_DATA.fxRates],
        [environment.GEOIP_DB_FILE, INGEST_DATA.geoip],
      ] as const;
      for (const [path, source] of shipped) {
        expect(path, id).toBe(`/var/task/${basename(source)}`);
        const copy = join(dir, basename(source));
        expect(existsSync(copy), `${id}: ${copy}`).toBe(true);
        expect(readFileSync(copy).equals(readFileSync(join(PROJECT_ROOT, source))), id).toBe(true);
      }
    }
  });

  it("ships the rate history with the daily rates job, its table's start", () => {
    // Found by its function: the config route ships the rates too (revenue rules are in USD).
    const job = lambdaBundles().find((b) => b.id.startsWith("FxRatesFunction"));
    expect(job?.environment.FX_RATES_FILE).toBe(`/var/task/${basename(INGEST_DATA.fxRates)}`);
    expect(readdirSync(job?.dir ?? "").sort()).toEqual([
      basename(INGEST_DATA.fxRates),
      "index.mjs",
    ]);
  });

  it("ships the country database with the functions that record touches, and no other file", () => {
    // Ingestion reads the touches table too, and ships the exchange rates besides; so does
    // POST /v1/touches, whose touches' cost goes to the lake in USD (checked above).
    const recording = lambdaBundles().filter(
      (b) =>
        "TOUCHES_TABLE" in b.environment &&
        "GEOIP_DB_FILE" in b.environment &&
        !("FX_RATES_FILE" in b.environment),
    );
    // The link host's tap route: its taps' cost is converted off its path, by the tap-lake
    // worker. And the sessions route, which records the installs sending from each address
    // in the touches table (src/ingest/sightings.ts).
    expect(recording.map((b) => b.id.replace(/[0-9A-F]{8}$/, "")).sort()).toEqual([
      "ApiAppSessionsRouteFunction",
      "LinkHostClickRouteFunction",
    ]);
    for (const { id, dir, environment } of recording) {
      expect(environment.GEOIP_DB_FILE, id).toBe(`/var/task/${basename(INGEST_DATA.geoip)}`);
      expect(readdirSync(dir).sort(), id).toEqual([basename(INGEST_DATA.geoip), "index.mjs"]);
    }
  });

  it("ships no data file with a function that does not read it", () => {
    for (const { id, dir, environment } of lambdaBundles()) {
      if ("FX_RATES_FILE" in environment || "GEOIP_DB_FILE" in environment) continue;
      expect(readdirSync(dir), id).toEqual(["index.mjs"]);
    }
  });

  it("writes the template where the CLI expects it", () => {
    expect(existsSync(join(outdir, `${STACK_ID}.template.json`))).toBe(true);
  });
});
