import { Match, type Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { linksEnv, touchesEnv, wellKnownEnv } from "../src/config/aws-env.ts";
import { LINK_HOST_ROUTES } from "../src/http/routes.ts";
import type { ServiceStack } from "./service-stack.ts";
import { actionsOf, statementsOfRole, synthServiceStack } from "./stack.test-support.ts";

let stack: ServiceStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = synthServiceStack());
});

const environmentOf = (fn: { function: { functionArn: string } }) => {
  const resolved = stack.resolve(fn.function.functionArn) as { "Fn::GetAtt": [string] };
  const resource = template.toJSON().Resources[resolved["Fn::GetAtt"][0]];
  return Object.keys(resource.Properties.Environment.Variables).sort();
};

/** Every action the role may take, as `action on resource` lines. */
const grantsOf = (role: Parameters<typeof statementsOfRole>[1]) =>
  statementsOfRole(template, role)
    .flatMap((statement) => actionsOf(statement).map((action) => ({ action, statement })))
    .filter(({ action }) => !/^(logs|xray):/.test(action));

describe("the link host", () => {
  it("is an HTTP API with one public route per row of LINK_HOST_ROUTES, each on payload 1.0", () => {
    template.resourceCountIs("AWS::ApiGatewayV2::Api", 1);
    template.hasResourceProperties("AWS::ApiGatewayV2::Api", { ProtocolType: "HTTP" });
    for (const route of LINK_HOST_ROUTES) {
      template.hasResourceProperties("AWS::ApiGatewayV2::Route", {
        RouteKey: `${route.method} ${route.path}`,
        AuthorizationType: "NONE",
      });
    }
    // And the catch-all, whose plain 404 page the tap route answers.
    template.hasResourceProperties("AWS::ApiGatewayV2::Route", {
      RouteKey: "$default",
      AuthorizationType: "NONE",
    });
    template.resourceCountIs("AWS::ApiGatewayV2::Route", LINK_HOST_ROUTES.length + 1);
    const integrations = template.findResources("AWS::ApiGatewayV2::Integration");
    expect(Object.keys(integrations)).toHaveLength(LINK_HOST_ROUTES.length + 1);
    for (const integration of Object.values(integrations)) {
      expect(integration.Properties).toMatchObject({
        IntegrationType: "AWS_PROXY",
        PayloadFormatVersion: "1.0",
      });
    }
  });

  it("logs access and throttles its default stage", () => {
    template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      StageName: "$default",
      AccessLogSettings: {
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp("sourceIp"),
      },
      DefaultRouteSettings: { ThrottlingRateLimit: 2_000, ThrottlingBurstLimit: 5_000 },
    });
  });

  it("names its own URL in new links, or the custom domain when one is set", () => {
    const variables = (target: ServiceStack, t: Template) => {
      const arn = target.resolve(target.api.routeFunctions["create-link"]?.function.functionArn);
      return t.toJSON().Resources[arn["Fn::GetAtt"][0]].Properties.Environment.Variables;
    };
    expect(variables(stack, template).LINK_BASE_URL).toEqual(
      stack.resolve(stack.linkHost.api.apiEndpoint),
    );
    const custom = synthServiceStack({
      settings: {
        linkDomain: {
          name: "go.example.com",
          certificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc",
        },
      },
    });
    expect(variables(custom.stack, custom.template).LINK_BASE_URL).toBe("https://go.example.com");
    custom.template.hasResourceProperties("AWS::ApiGatewayV2::DomainName", {
      DomainName: "go.example.com",
    });
    custom.template.resourceCountIs("AWS::ApiGatewayV2::ApiMapping", 1);
    expect(Object.keys(custom.template.toJSON().Outputs)).toContain("LinkHostTarget");
  });

  it("gives each function exactly the variables of its schema", () => {
    const { routeFunctions } = stack.linkHost;
    expect(environmentOf(routeFunctions.click)).toEqual(Object.keys(touchesEnv.shape).sort());
    expect(environmentOf(routeFunctions.assetlinks)).toEqual(
      Object.keys(wellKnownEnv.shape).sort(),
    );
    const touches = stack.api.routeFunctions.touches;
    const createLink = stack.api.routeFunctions["create-link"];
    if (!touches || !createLink) throw new Error("missing functions");
    expect(environmentOf(touches)).toEqual(Object.keys(touchesEnv.shape).sort());
    expect(environmentOf(createLink)).toEqual(Object.keys(linksEnv.shape).sort());
  });
});

describe("the touches table", () => {
  it("expires touches by TTL and indexes them by advertising id and by IP, newest first", () => {
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      KeySchema: [{ AttributeName: "clickId", KeyType: "HASH" }],
      TimeToLiveSpecification: { AttributeName: "expiresTtl", Enabled: true },
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({
          IndexName: "byMaid",
          KeySchema: [
            { AttributeName: "maidKey", KeyType: "HASH" },
            { AttributeName: "touchKey", KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        }),
        Match.objectLike({
          IndexName: "byIp",
          KeySchema: [
            { AttributeName: "ipKey", KeyType: "HASH" },
            { AttributeName: "touchKey", KeyType: "RANGE" },
          ],
        }),
      ]),
    });
  });

  it("has a delivery stream into the touches lake table", () => {
    expect(stack.ingest.streams.touches).toBeDefined();
    template.hasResourceProperties("AWS::KinesisFirehose::DeliveryStream", {
      ExtendedS3DestinationConfiguration: Match.objectLike({
        Prefix: Match.stringLikeRegexp("^touches/"),
      }),
    });
  });
});

describe("least privilege for touches and links", () => {
  const resourceOf = (statement: Record<string, unknown>) => JSON.stringify(statement.Resource);
  const arn = (value: unknown) => JSON.stringify(stack.resolve(value));

  it("lets the tap route read apps and links, write touches, and put to the touches stream only", () => {
    const grants = grantsOf(stack.linkHost.routeFunctions.click.role);
    const touchesTable = arn(stack.tables.table.touches.tableArn);
    for (const { action, statement } of grants) {
      if (action === "firehose:PutRecordBatch" || action === "firehose:PutRecord") {
        expect(resourceOf(statement)).toBe(arn(stack.ingest.streams.touches.attrArn));
      } else if (action === "dynamodb:GetItem") {
      } else if (action.startsWith("dynamodb:")) {
        expect(["dynamodb:PutItem", "dynamodb:BatchWriteItem", "dynamodb:DeleteItem"]).toContain(
          action,
        );
        expect(resourceOf(statement)).toBe(touchesTable);
      } else if (!action.startsWith("s3:") && !action.startsWith("kms:")) {
        throw new Error(`unexpected grant ${action}`);
      }
    }
    const actions = grants.map((grant) => grant.action);
    expect(actions).not.toContain("dynamodb:Query");
    expect(actions).not.toContain("dynamodb:Scan");
    expect(actions).not.toContain("dynamodb:UpdateItem");
  });

  it("lets the link routes query only the links' by-app index, and write only links", () => {
    const fn = stack.api.routeFunctions["list-links"];
    if (!fn) throw new Error("no list-links function");
    const grants = grantsOf(fn.role);
    for (const { action, statement } of grants) {
      if (action === "dynamodb:Query") {
        expect(resourceOf(statement)).toBe(arn(stack.tables.indexArn("links", "byApp")));
      }
      if (action === "dynamodb:PutItem" || action === "dynamodb:UpdateItem") {
        expect(resourceOf(statement)).toBe(arn(stack.tables.table.links.tableArn));
      }
    }
    expect(grants.map((grant) => grant.action)).not.toContain("firehose:PutRecordBatch");
  });

  it("lets the .well-known functions scan apps, and nothing else", () => {
    const grants = grantsOf(stack.linkHost.routeFunctions.assetlinks.role);
    expect(grants.map((grant) => grant.action)).toEqual(["dynamodb:Scan"]);
    expect(resourceOf(grants[0]?.statement ?? {})).toBe(arn(stack.tables.table.apps.tableArn));
  });
});
