import { Match, type Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { linksEnv, touchesEnv, wellKnownEnv } from "../src/config/aws-env.ts";
import { envSchemaOf } from "../src/functions/env.ts";
import { LINK_HOST_ROUTES, routeOf } from "../src/http/routes.ts";
import { VIEWER_ADDRESS } from "../src/http/viewer-address.ts";
import { isEmbedded, isPrefetch } from "../src/touches/fetch-purpose.ts";
import { FOLD_FETCH_HEADERS, FORWARDED_HEADERS, TRIM_FINAL_SLASH } from "./link-host.ts";
import { ORIGIN_HEADER } from "./link-host-origin.ts";
import type { ServiceStack } from "./service-stack.ts";
import {
  actionsOf,
  sharedServiceStack,
  statementsOfRole,
  synthServiceStack,
} from "./stack.test-support.ts";

let stack: ServiceStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = sharedServiceStack());
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
  it("is an HTTP API with a route per row of LINK_HOST_ROUTES (and a GET's HEAD), each on payload 1.0, open only to its distribution", () => {
    template.resourceCountIs("AWS::ApiGatewayV2::Api", 1);
    template.hasResourceProperties("AWS::ApiGatewayV2::Api", { ProtocolType: "HTTP" });
    const authorizer = Object.keys(template.findResources("AWS::ApiGatewayV2::Authorizer"));
    expect(authorizer).toHaveLength(1);
    // Every route, and the catch-all whose plain 404 page the tap route answers, checks the
    // distribution's header before its handler runs.
    // A GET route answers HEAD too; the postbacks' POST route does not.
    const routeKeys = LINK_HOST_ROUTES.flatMap((r) =>
      r.method === "GET" ? [`${r.method} ${r.path}`, `HEAD ${r.path}`] : [`${r.method} ${r.path}`],
    );
    for (const routeKey of [...routeKeys, "$default"]) {
      template.hasResourceProperties("AWS::ApiGatewayV2::Route", {
        RouteKey: routeKey,
        AuthorizationType: "CUSTOM",
        AuthorizerId: { Ref: authorizer[0] },
      });
    }
    template.resourceCountIs("AWS::ApiGatewayV2::Route", routeKeys.length + 1);
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

  it("names its distribution's URL in new links, or the custom domain when one is set", () => {
    const variables = (target: ServiceStack, t: Template) => {
      const arn = target.resolve(target.api.routeFunctions["create-link"]?.function.functionArn);
      return t.toJSON().Resources[arn["Fn::GetAtt"][0]].Properties.Environment.Variables;
    };
    expect(variables(stack, template).LINK_BASE_URL).toEqual(
      stack.resolve(`https://${stack.linkHost.distribution.distributionDomainName}`),
    );
    const custom = withDomain();
    expect(variables(custom.stack, custom.template).LINK_BASE_URL).toBe("https://go.example.com");
    // The apps' own hosts it serves, which a settings change may name; none without them.
    expect(variables(stack, template).LINK_APP_HOSTS).toBe("");
    const apps = synthServiceStack({
      settings: {
        linkDomain: {
          name: "go.example.com",
          certificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc",
          edgeCertificateArn: "arn:aws:acm:us-east-1:123456789012:certificate/edge",
          appHosts: ["go.brand.com", "go.other.example"],
        },
      },
    });
    expect(variables(apps.stack, apps.template).LINK_APP_HOSTS).toBe(
      "go.brand.com,go.other.example",
    );
    custom.template.hasResourceProperties("AWS::ApiGatewayV2::DomainName", {
      DomainName: "go.example.com",
    });
    custom.template.resourceCountIs("AWS::ApiGatewayV2::ApiMapping", 1);
    // The domain's DNS points at the distribution, not at the API.
    expect(custom.template.toJSON().Outputs.LinkHostTarget.Value).toEqual(
      custom.stack.resolve(custom.stack.linkHost.distribution.distributionDomainName),
    );
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
    expect(environmentOf(touches)).toEqual(
      Object.keys(envSchemaOf(routeOf("touches").uses).shape).sort(),
    );
    expect(environmentOf(createLink)).toEqual(Object.keys(linksEnv.shape).sort());
  });

  it("tells the tap to trust CloudFront's viewer address, and no API route", () => {
    const variable = (fn: { function: { functionArn: string } }) => {
      const resolved = stack.resolve(fn.function.functionArn) as { "Fn::GetAtt": [string] };
      return template.toJSON().Resources[resolved["Fn::GetAtt"][0]].Properties.Environment.Variables
        .TRUST_VIEWER_ADDRESS;
    };
    expect(variable(stack.linkHost.routeFunctions.click)).toBe("true");
    for (const fn of Object.values(stack.api.routeFunctions)) {
      const env = stack.resolve(fn.function.functionArn) as { "Fn::GetAtt": [string] };
      const vars = template.toJSON().Resources[env["Fn::GetAtt"][0]].Properties.Environment;
      expect(vars?.Variables?.TRUST_VIEWER_ADDRESS).toBeUndefined();
    }
  });
});

const withDomain = () =>
  synthServiceStack({
    settings: {
      linkDomain: {
        name: "go.example.com",
        certificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc",
        edgeCertificateArn: "arn:aws:acm:us-east-1:123456789012:certificate/edge",
      },
    },
  });

/** The link host's distribution's config. */
const distributionOf = (target: ServiceStack, t: Template) => {
  const { Ref: id } = target.resolve(target.linkHost.distribution.distributionId) as {
    Ref: string;
  };
  return t.toJSON().Resources[id].Properties.DistributionConfig;
};

/** CloudFront's managed cache policy that caches nothing. */
const CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad";

describe("the link host's distribution", () => {
  it("caches no tap: every one reaches the tap function", () => {
    const config = distributionOf(stack, template);
    for (const behavior of [config.DefaultCacheBehavior, ...config.CacheBehaviors]) {
      expect(behavior.CachePolicyId).toBe(CACHING_DISABLED);
    }
  });

  it("lets Apple's devices post their postbacks' copies, with the trailing slash they send, and takes only GET and HEAD elsewhere", () => {
    const config = distributionOf(stack, template);
    expect(config.DefaultCacheBehavior.AllowedMethods).toEqual(["GET", "HEAD"]);
    const posted = LINK_HOST_ROUTES.filter((route) => route.method !== "GET");
    expect(posted.map((route) => route.id)).toEqual(["apple-postback"]);
    const [behavior, ...others] = config.CacheBehaviors;
    expect(others).toEqual([]);
    expect(behavior.PathPattern).toBe("/.well-known/*/report-attribution*");
    expect(behavior.AllowedMethods).toContain("POST");
    // CloudFront's `*` is any run of characters: both frameworks' paths, with and without
    // the final slash, fall under it, and no tap's path does.
    const pattern = new RegExp(
      `^${behavior.PathPattern.replace(/[.]/g, "\\.").replace(/\*/g, ".*")}$`,
    );
    for (const path of [
      "/.well-known/skadnetwork/report-attribution/",
      "/.well-known/appattribution/report-attribution/",
      "/.well-known/skadnetwork/report-attribution",
    ]) {
      expect(path).toMatch(pattern);
    }
    expect("/summer-sale").not.toMatch(pattern);
    expect("/.well-known/apple-app-site-association").not.toMatch(pattern);
    // The same origin, its secret header and what it forwards as every tap's.
    for (const key of ["TargetOriginId", "OriginRequestPolicyId", "ViewerProtocolPolicy"]) {
      expect(behavior[key]).toEqual(config.DefaultCacheBehavior[key]);
    }
    // The origin is asked for the route's own path, without the slash the devices send.
    expect(behavior.FunctionAssociations).toEqual([
      { EventType: "viewer-request", FunctionARN: expect.anything() },
    ]);
    // The taps' behaviour has a function of its own (FOLD_FETCH_HEADERS), not this one.
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
    expect(config.DefaultCacheBehavior.FunctionAssociations[0].FunctionARN).not.toEqual(
      behavior.FunctionAssociations[0].FunctionARN,
    );
    template.hasResourceProperties("AWS::CloudFront::Function", {
      FunctionCode: TRIM_FINAL_SLASH,
      FunctionConfig: Match.objectLike({ Runtime: "cloudfront-js-2.0" }),
    });
    const handler = new Function(`${TRIM_FINAL_SLASH}; return handler;`)() as (event: {
      request: { uri: string };
    }) => { uri: string };
    const uriOf = (uri: string) => handler({ request: { uri } }).uri;
    expect(uriOf("/.well-known/skadnetwork/report-attribution/")).toBe(
      "/.well-known/skadnetwork/report-attribution",
    );
    expect(uriOf("/.well-known/appattribution/report-attribution")).toBe(
      "/.well-known/appattribution/report-attribution",
    );
    expect(uriOf("/")).toBe("/");
  });

  it("folds why a browser asks into one forwarded header, which the tap reads as it reads the headers apart", () => {
    const behavior = distributionOf(stack, template).DefaultCacheBehavior;
    expect(behavior.FunctionAssociations).toEqual([
      { EventType: "viewer-request", FunctionARN: expect.anything() },
    ]);
    template.hasResourceProperties("AWS::CloudFront::Function", {
      FunctionCode: FOLD_FETCH_HEADERS,
      FunctionConfig: Match.objectLike({ Runtime: "cloudfront-js-2.0" }),
    });
    type Headers = Record<string, { value: string }>;
    const handler = new Function(`${FOLD_FETCH_HEADERS}; return handler;`)() as (event: {
      request: { headers: Headers };
    }) => { headers: Headers };
    /** What the origin reads of a viewer's headers: those forwarded, as the function left them. */
    const atOrigin = (sent: Record<string, string>) => {
      const headers: Headers = Object.fromEntries(
        Object.entries(sent).map(([name, value]) => [name, { value }]),
      );
      const forwarded = new Set(FORWARDED_HEADERS.map((name) => name.toLowerCase()));
      return Object.fromEntries(
        Object.entries(handler({ request: { headers } }).headers)
          .filter(([name]) => forwarded.has(name))
          .map(([name, { value }]) => [name, value]),
      );
    };
    const image = {
      "sec-fetch-dest": "image",
      "sec-fetch-mode": "no-cors",
      "sec-fetch-site": "cross-site",
    };
    expect(isEmbedded(atOrigin(image))).toBe(true);
    const frame = { "sec-fetch-dest": "iframe", "sec-fetch-mode": "navigate" };
    expect(isEmbedded(atOrigin(frame))).toBe(true);
    expect(isEmbedded(atOrigin({ ...frame, "sec-fetch-user": "?1" }))).toBe(false);
    const tap = {
      "sec-fetch-dest": "document",
      "sec-fetch-mode": "navigate",
      "sec-fetch-user": "?1",
    };
    expect(isEmbedded(atOrigin(tap))).toBe(false);
    for (const prefetch of <Record<string, string>[]>[
      { "sec-purpose": "prefetch;prerender" },
      { purpose: "prefetch" },
      { "x-purpose": "preview" },
      { "x-moz": "prefetch" },
    ]) {
      expect(isPrefetch(atOrigin({ ...tap, ...prefetch })), JSON.stringify(prefetch)).toBe(true);
    }
    expect(isPrefetch(atOrigin(tap))).toBe(false);
    // A value is carried whole, whatever it holds.
    expect(atOrigin({ "sec-purpose": "prefetch; anonymous-client-ip&x=1" })).toEqual({
      "x-tap-fetch": "sec-purpose=prefetch%3B%20anonymous-client-ip%26x%3D1",
    });
    // A viewer's own header of that name never reaches the origin.
    expect(atOrigin({ "x-tap-fetch": "sec-fetch-mode=no-cors" })).toEqual({});
    expect(atOrigin({ ...tap, "x-tap-fetch": "x-moz=prefetch" })).toEqual({
      "x-tap-fetch": "sec-fetch-dest=document&sec-fetch-mode=navigate&sec-fetch-user=%3F1",
    });
  });

  it("forwards what a tap reads, the viewer's address and the client hints included, and every query parameter", () => {
    const behavior = distributionOf(stack, template).DefaultCacheBehavior;
    const policy =
      template.toJSON().Resources[behavior.OriginRequestPolicyId.Ref].Properties
        .OriginRequestPolicyConfig;
    expect(policy.HeadersConfig.HeaderBehavior).toBe("whitelist");
    expect(policy.HeadersConfig.Headers.map((h: string) => h.toLowerCase())).toEqual(
      expect.arrayContaining([
        VIEWER_ADDRESS,
        "user-agent",
        "accept-language",
        // The client hints a tap from Chrome's reduced agent is asked for and repeated with.
        "sec-ch-ua",
        "sec-ch-ua-model",
        "sec-ch-ua-platform-version",
      ]),
    );
    // Without a domain the origin is the API's execute-api host, which takes no other Host.
    expect(policy.HeadersConfig.Headers).not.toContain("Host");
    expect(policy.QueryStringsConfig.QueryStringBehavior).toBe("all");
    expect(policy.CookiesConfig.CookieBehavior).toBe("none");
    expect(FORWARDED_HEADERS.map((h) => h.toLowerCase())).toContain(VIEWER_ADDRESS);
    // The tap's own headers (Accept-CH, Vary, the landing page's policy) go back as the
    // function sets them: no response headers policy replaces or drops any.
    expect(behavior.ResponseHeadersPolicyId).toBeUndefined();
  });

  it("sends the origin its secret header, which the API's authorizer checks", () => {
    const [origin] = distributionOf(stack, template).Origins;
    expect(origin.OriginCustomHeaders).toEqual([
      { HeaderName: ORIGIN_HEADER, HeaderValue: expect.anything() },
    ]);
    expect(JSON.stringify(origin.OriginCustomHeaders)).toContain("resolve:secretsmanager");
    expect(origin.CustomOriginConfig).toMatchObject({
      OriginProtocolPolicy: "https-only",
      OriginSSLProtocols: ["TLSv1.2"],
    });
    template.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", {
      AuthorizerType: "REQUEST",
      IdentitySource: [`$request.header.${ORIGIN_HEADER}`],
      EnableSimpleResponses: true,
      AuthorizerResultTtlInSeconds: 3600,
    });
    // The same secret in the authorizer's environment as in the header.
    const check = stack.resolve(stack.linkHost.originCheck.function.functionArn) as {
      "Fn::GetAtt": [string];
    };
    expect(
      template.toJSON().Resources[check["Fn::GetAtt"][0]].Properties.Environment.Variables
        .ORIGIN_SECRET,
    ).toEqual(origin.OriginCustomHeaders[0].HeaderValue);
  });

  it("answers on IPv4 only, as the API the SDKs call, so a tap's address matches the install's", () => {
    expect(distributionOf(stack, template).IPV6Enabled).toBe(false);
  });

  it("takes the CloudFront web ACL when one is given", () => {
    expect(distributionOf(stack, template).WebACLId).toBeUndefined();
    const acl = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/attribution/abc";
    const guarded = synthServiceStack({ settings: { edgeWebAclArn: acl } });
    expect(distributionOf(guarded.stack, guarded.template).WebACLId).toBe(acl);
  });

  it("with a domain: answers on it with the us-east-1 certificate, from the API's domain, the Host forwarded", () => {
    const custom = withDomain();
    const config = distributionOf(custom.stack, custom.template);
    expect(config.Aliases).toEqual(["go.example.com"]);
    expect(config.ViewerCertificate).toMatchObject({
      AcmCertificateArn: "arn:aws:acm:us-east-1:123456789012:certificate/edge",
      MinimumProtocolVersion: "TLSv1.2_2021",
    });
    const [domain] = Object.keys(custom.template.findResources("AWS::ApiGatewayV2::DomainName"));
    expect(config.Origins[0].DomainName).toEqual({ "Fn::GetAtt": [domain, "RegionalDomainName"] });
    const policy =
      custom.template.toJSON().Resources[config.DefaultCacheBehavior.OriginRequestPolicyId.Ref]
        .Properties.OriginRequestPolicyConfig;
    expect(policy.HeadersConfig.Headers).toContain("Host");
    // CloudFront's quota: an origin request policy names 10 headers at most.
    expect(policy.HeadersConfig.Headers.length).toBeLessThanOrEqual(10);
    // And the API's own URL answers no one: only the domain, only through the distribution.
    custom.template.hasResourceProperties("AWS::ApiGatewayV2::Api", {
      DisableExecuteApiEndpoint: true,
    });
    template.hasResourceProperties("AWS::ApiGatewayV2::Api", {
      DisableExecuteApiEndpoint: false,
    });
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

  it("lets the tap route read apps and links, list apps (whose link hosts a tap came on) and put one touch, nothing else", () => {
    const grants = grantsOf(stack.linkHost.routeFunctions.click.role);
    const touchesTable = arn(stack.tables.table.touches.tableArn);
    for (const { action, statement } of grants) {
      if (action === "dynamodb:GetItem") {
        expect(resourceOf(statement)).not.toBe(touchesTable);
      } else if (action === "dynamodb:Scan") {
        expect(resourceOf(statement)).toBe(arn(stack.tables.table.apps.tableArn));
      } else if (action.startsWith("dynamodb:")) {
        // Its one write: no batch (whose requests may delete), no delete, no update.
        expect(action).toBe("dynamodb:PutItem");
        expect(resourceOf(statement)).toBe(touchesTable);
      } else if (!action.startsWith("s3:") && !action.startsWith("kms:")) {
        // The lake's row follows from the table's stream, not from the tap.
        throw new Error(`unexpected grant ${action}`);
      }
    }
    expect(grants.map((grant) => grant.action)).toContain("dynamodb:PutItem");
    expect(grants.map((grant) => grant.action)).toContain("dynamodb:Scan");
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

  it("lets Apple's postbacks be read by their key, put and marked disputed, and the apps scanned for their App Store ids", () => {
    const fn = stack.linkHost.routeFunctions["apple-postback"];
    if (!fn) throw new Error("no apple-postback function");
    const dynamo = grantsOf(fn.role).filter((grant) => grant.action.startsWith("dynamodb:"));
    const on = (table: string) =>
      dynamo
        .filter(({ statement }) => resourceOf(statement) === table)
        .map((grant) => grant.action)
        .sort();
    // The receiver reads what a transaction holds before its conditional put, and marks the
    // copy kept disputed when a signed one disagrees with it.
    expect(on(arn(stack.tables.table.applePostbacks.tableArn))).toEqual([
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:UpdateItem",
    ]);
    expect(on(arn(stack.tables.table.apps.tableArn))).toEqual(["dynamodb:Scan"]);
    expect(dynamo).toHaveLength(4);
  });

  it("lets the .well-known functions scan apps, and nothing else", () => {
    const grants = grantsOf(stack.linkHost.routeFunctions.assetlinks.role);
    expect(grants.map((grant) => grant.action)).toEqual(["dynamodb:Scan"]);
    expect(resourceOf(grants[0]?.statement ?? {})).toBe(arn(stack.tables.table.apps.tableArn));
  });
});
