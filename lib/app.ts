/**
 * The CDK app, shared by bin/cdk.ts and the synth test. Account and region come from the
 * CLI's environment (CDK_DEFAULT_*), so the same app deploys anywhere; without them it
 * synthesizes an environment-agnostic template. cdk-nag 3 runs as a policy-validation plugin:
 * an unacknowledged AwsSolutions finding fails synthesis.
 */
import { App, type AppProps, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import * as z from "zod";
import { ServiceStack } from "./service-stack.ts";
import { DEFAULT_SETTINGS, type StackSettings } from "./settings.ts";
import { EDGE_REGION, EdgeWebAclStack } from "./web-acl.ts";

export const STACK_ID = "AttributionService";
/** The CloudFront web ACL's stack (lib/web-acl.ts), in us-east-1. */
export const EDGE_STACK_ID = "AttributionServiceEdge";

/** `-c trustViewerCountry=true` on the command line is text; in cdk.json it may be a boolean. */
const flag = z
  .union([z.boolean(), z.enum(["true", "false"]).transform((text) => text === "true")])
  .optional();

const text = z.string().min(1).optional();

const hostName = (setting: string, example: string) =>
  z
    .string({ error: `${setting} must be a domain, e.g. ${example}` })
    .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, `${setting} must be a host name`);

const certificate = (setting: string) =>
  z
    .string({ error: `${setting} must be the domain's ACM certificate ARN` })
    .startsWith("arn:aws:acm:", `${setting} must be an ACM certificate ARN`);

/** The region of an ARN (`arn:aws:acm:<region>:…`). */
const regionOf = (arn: string): string | undefined => arn.split(":")[3];

/** `-c apiDomain=api.example.com -c apiCertificateArn=arn:aws:acm:…`: both, or neither. */
const apiDomainOf = (name: unknown, certificateArn: unknown) =>
  name === undefined && certificateArn === undefined
    ? undefined
    : z
        .object({
          name: hostName("apiDomain", "api.example.com"),
          certificateArn: certificate("apiCertificateArn"),
        })
        .parse({ name, certificateArn });

/**
 * `-c linkDomain=go.example.com -c linkCertificateArn=arn:aws:acm:…`: both, or neither; and
 * `-c linkEdgeCertificateArn=arn:aws:acm:us-east-1:…` for CloudFront, unless the first is there;
 * `-c linkAppHosts=go.brand.com,go.other.com`, the apps' own link hosts, with the domain only.
 */
const linkDomainOf = (
  name: unknown,
  certificateArn: unknown,
  edgeCertificateArn: unknown,
  appHosts: unknown,
) => {
  if (name === undefined && certificateArn === undefined) {
    if (appHosts !== undefined) {
      throw new Error(
        "linkAppHosts needs linkDomain and its certificates: the apps' hosts are served beside it, under the same certificates",
      );
    }
    return undefined;
  }
  const domain = z
    .object({
      name: hostName("linkDomain", "go.example.com"),
      certificateArn: certificate("linkCertificateArn"),
      edgeCertificateArn: certificate("linkEdgeCertificateArn").optional(),
    })
    .parse({ name, certificateArn, edgeCertificateArn });
  const edge =
    domain.edgeCertificateArn ??
    (regionOf(domain.certificateArn) === EDGE_REGION ? domain.certificateArn : undefined);
  if (edge === undefined || regionOf(edge) !== EDGE_REGION) {
    throw new Error(
      `linkEdgeCertificateArn must be the link domain's ACM certificate in ${EDGE_REGION}, where CloudFront takes certificates from`,
    );
  }
  const hosts =
    appHosts === undefined
      ? []
      : z.array(hostName("linkAppHosts", "go.brand.com")).parse(
          String(appHosts)
            .split(",")
            .map((host) => host.trim().toLowerCase())
            .filter((host) => host !== ""),
        );
  const named = new Set([domain.name.toLowerCase(), ...hosts]);
  if (named.size !== hosts.length + 1) {
    throw new Error("linkAppHosts must name each host once, and not linkDomain itself");
  }
  return {
    ...domain,
    edgeCertificateArn: edge,
    ...(hosts.length > 0 ? { appHosts: hosts } : {}),
  };
};

/** A CLOUDFRONT-scope web ACL: global, in us-east-1. */
const edgeWebAcl = z
  .string()
  .regex(
    new RegExp(`^arn:aws[\\w-]*:wafv2:${EDGE_REGION}:\\d{12}:global/webacl/`),
    `edgeWebAclArn must be a CLOUDFRONT-scope web ACL's ARN (arn:aws:wafv2:${EDGE_REGION}:<account>:global/webacl/…)`,
  )
  .optional();

/** An object setting: JSON on the command line, an object in cdk.json. */
const jsonObject = <T extends z.ZodRawShape>(shape: T) =>
  z
    .union([
      z.string().transform((json, ctx) => {
        try {
          return JSON.parse(json) as unknown;
        } catch {
          ctx.addIssue({ code: "custom", message: "must be a JSON object" });
          return z.NEVER;
        }
      }),
      z.record(z.string(), z.unknown()),
    ])
    .pipe(z.strictObject(shape).partial())
    .optional();

const count = z.coerce.number().int().min(0);
const rate = z.coerce.number().positive();

export const createApp = (
  props: AppProps = {},
): { app: App; stack: ServiceStack; edge: EdgeWebAclStack | undefined } => {
  const app = new App(props);
  const context = (name: string): unknown => app.node.tryGetContext(name);
  const apiPeak = jsonObject(
    Object.fromEntries(Object.keys(DEFAULT_SETTINGS.apiPeak).map((load) => [load, rate])) as {
      [L in keyof StackSettings["apiPeak"]]: typeof rate;
    },
  ).parse(context("apiPeak"));
  const reserved = jsonObject({ ingest: count, tap: count, attribution: count }).parse(
    context("reservedConcurrency"),
  );
  const addressRateLimit = z.coerce
    .number()
    .int()
    .min(10)
    .optional()
    .parse(context("addressRateLimit"));
  const stack = new ServiceStack(app, STACK_ID, {
    description: "Mobile attribution service: API, DynamoDB, Firehose to a Parquet lake, Athena",
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    // A stack holding every install and event is not deleted by a slip: `cdk destroy` and a
    // console delete are refused until it is turned off (false for an emulator's stack).
    terminationProtection: flag.parse(app.node.tryGetContext("terminationProtection")) ?? true,
    settings: {
      trustViewerCountry: flag.parse(app.node.tryGetContext("trustViewerCountry")),
      // Postbacks to loopback, for an emulator's test deployment only (docs/postbacks.md).
      postbacksAllowLoopback: flag.parse(app.node.tryGetContext("postbacksAllowLoopback")),
      // Both false for an emulator without Glue, Athena and HTTP APIs (docs/testing.md).
      lakeQueries: flag.parse(app.node.tryGetContext("lakeQueries")),
      linkHost: flag.parse(app.node.tryGetContext("linkHost")),
      dashboard: flag.parse(app.node.tryGetContext("dashboard")),
      // Where the alarms go (docs/aws.md#alarms): an e-mail address, or an existing topic.
      alarmEmail: text.parse(app.node.tryGetContext("alarmEmail")),
      alarmTopicArn: text.parse(app.node.tryGetContext("alarmTopicArn")),
      // The link host's own domain, with its ACM certificates in the stack's region and in
      // us-east-1 for CloudFront (name and certificate both or none).
      linkDomain: linkDomainOf(
        context("linkDomain"),
        context("linkCertificateArn"),
        context("linkEdgeCertificateArn"),
        context("linkAppHosts"),
      ),
      // The API's own domain, with its ACM certificate in the stack's region (both or none).
      apiDomain: apiDomainOf(context("apiDomain"), context("apiCertificateArn")),
      // Limits (docs/aws.md#limits): each kind of route's peak, one app's share, per address.
      apiPeak: apiPeak && { ...DEFAULT_SETTINGS.apiPeak, ...apiPeak },
      appShare: z.coerce.number().gt(0).max(1).optional().parse(context("appShare")),
      reservedConcurrency: reserved && { ...DEFAULT_SETTINGS.reservedConcurrency, ...reserved },
      addressRateLimit,
      // The CloudFront web ACL of the link host's and the dashboard's distributions.
      edgeWebAclArn: edgeWebAcl.parse(context("edgeWebAclArn")),
    },
  });
  // That web ACL, made in us-east-1 by a stack of its own, deployed by name when asked for.
  const edge = flag.parse(context("edgeWebAclStack"))
    ? new EdgeWebAclStack(app, EDGE_STACK_ID, {
        env: { account: process.env.CDK_DEFAULT_ACCOUNT },
        addressRateLimit: addressRateLimit ?? DEFAULT_SETTINGS.addressRateLimit,
      })
    : undefined;
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack, edge };
};
