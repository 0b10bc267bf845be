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

export const STACK_ID = "AttributionService";

/** `-c trustViewerCountry=true` on the command line is text; in cdk.json it may be a boolean. */
const flag = z
  .union([z.boolean(), z.enum(["true", "false"]).transform((text) => text === "true")])
  .optional();

const text = z.string().min(1).optional();

/** `-c linkDomain=go.example.com -c linkCertificateArn=arn:aws:acm:…`: both, or neither. */
const linkDomainOf = (name: unknown, certificateArn: unknown) =>
  name === undefined && certificateArn === undefined
    ? undefined
    : z
        .object({
          name: z
            .string({ error: "linkDomain must be the link host's domain, e.g. go.example.com" })
            .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, "linkDomain must be a host name"),
          certificateArn: z
            .string({ error: "linkCertificateArn must be the domain's ACM certificate ARN" })
            .startsWith("arn:aws:acm:", "linkCertificateArn must be an ACM certificate ARN"),
        })
        .parse({ name, certificateArn });

export const createApp = (props: AppProps = {}): { app: App; stack: ServiceStack } => {
  const app = new App(props);
  const stack = new ServiceStack(app, STACK_ID, {
    description: "Mobile attribution service: API, DynamoDB, Firehose to a Parquet lake, Athena",
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    // A stack holding every install and event is not deleted by a slip: `cdk destroy` and a
    // console delete are refused until it is turned off (false for an emulator's stack).
    terminationProtection: flag.parse(app.node.tryGetContext("terminationProtection")) ?? true,
    settings: {
      trustViewerCountry: flag.parse(app.node.tryGetContext("trustViewerCountry")),
      // Both false for an emulator without Glue, Athena and HTTP APIs (docs/testing.md).
      lakeQueries: flag.parse(app.node.tryGetContext("lakeQueries")),
      linkHost: flag.parse(app.node.tryGetContext("linkHost")),
      dashboard: flag.parse(app.node.tryGetContext("dashboard")),
      // Where the alarms go (docs/aws.md#alarms): an e-mail address, or an existing topic.
      alarmEmail: text.parse(app.node.tryGetContext("alarmEmail")),
      alarmTopicArn: text.parse(app.node.tryGetContext("alarmTopicArn")),
      // The link host's own domain, with its ACM certificate in the stack's region (both or none).
      linkDomain: linkDomainOf(
        app.node.tryGetContext("linkDomain"),
        app.node.tryGetContext("linkCertificateArn"),
      ),
    },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
};
