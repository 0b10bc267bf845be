/**
 * The dashboard on AWS: its page from a private bucket through CloudFront with origin access
 * control and the service's security headers, the API behind the same origin uncached, and
 * a Cognito user pool that no one signs themselves up to.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Match, type Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { dashboardDist } from "../dashboard/dist-path.ts";
import { PENDING_SIGN_IN_LIFETIME_MS } from "../src/dashboard/totp.ts";
import { CONTENT_SECURITY_POLICY } from "../src/http/dashboard-headers.ts";
import { ROUTES } from "../src/http/routes.ts";
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

/** CloudFront's managed policies, by their fixed ids. */
const CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad";
const ALL_VIEWER_EXCEPT_HOST_HEADER = "b689b0a8-53d0-40ab-baf2-68738e2966ac";

/** The dashboard's distribution's config (the link host has a distribution too). */
const distributionConfig = (t: Template, target: ServiceStack): Record<string, unknown> => {
  const { Ref: id } = target.resolve(target.dashboard.distribution.distributionId) as {
    Ref: string;
  };
  return t.toJSON().Resources[id].Properties.DistributionConfig;
};

describe("the dashboard's site", () => {
  it("serves the page from a private bucket that only the distribution reads (origin access control)", () => {
    template.resourceCountIs("AWS::CloudFront::OriginAccessControl", 1);
    const bucket = stack.resolve(stack.dashboard.bucket.bucketName);
    template.hasResourceProperties("AWS::S3::Bucket", {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    template.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: bucket,
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: "s3:GetObject",
            Principal: { Service: "cloudfront.amazonaws.com" },
          }),
        ]),
      },
    });
  });

  it("forwards every API path to the API's stage, uncached, with the viewer's headers", () => {
    const config = distributionConfig(template, stack);
    const behaviors = (config?.CacheBehaviors ?? []) as {
      PathPattern: string;
      CachePolicyId: string;
      OriginRequestPolicyId: string;
      AllowedMethods: string[];
      ViewerProtocolPolicy: string;
    }[];
    expect(behaviors.map((b) => b.PathPattern).sort()).toEqual(["/api/*", "/v1/*"]);
    for (const behavior of behaviors) {
      expect(behavior.CachePolicyId).toBe(CACHING_DISABLED);
      expect(behavior.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
      expect(behavior.AllowedMethods).toContain("DELETE");
      expect(behavior.ViewerProtocolPolicy).toBe("https-only");
    }
    // An export's first page comes once its snapshot is made: the API's origin waits a minute.
    const origins = (config?.Origins ?? []) as {
      Id: string;
      CustomOriginConfig?: { OriginReadTimeout?: number };
    }[];
    const apiOrigin = origins.find((origin) => origin.CustomOriginConfig !== undefined);
    expect(apiOrigin?.CustomOriginConfig?.OriginReadTimeout).toBe(60);
    // Every API route is under one of them, so the page reaches all it calls.
    for (const route of ROUTES) {
      expect(
        route.path.startsWith("/v1/") || route.path.startsWith("/api/"),
        `${route.id}: ${route.path}`,
      ).toBe(true);
    }
  });

  it("keys the page's files at the edge by their content hash, so a deploy's page gets its own", () => {
    const config = distributionConfig(template, stack);
    const { CachePolicyId } = (config?.DefaultCacheBehavior ?? {}) as { CachePolicyId?: unknown };
    const policies = template.findResources("AWS::CloudFront::CachePolicy");
    const [id, policy] =
      Object.entries(policies).find(([logicalId]) =>
        JSON.stringify(CachePolicyId).includes(logicalId),
      ) ?? [];
    expect(id, "the default behaviour's cache policy is the stack's own").toBeDefined();
    const key = (
      policy as {
        Properties: {
          CachePolicyConfig: {
            ParametersInCacheKeyAndForwardedToOrigin: {
              QueryStringsConfig: { QueryStringBehavior: string; QueryStrings?: string[] };
            };
          };
        };
      }
    ).Properties.CachePolicyConfig.ParametersInCacheKeyAndForwardedToOrigin.QueryStringsConfig;
    expect(key).toEqual({ QueryStringBehavior: "whitelist", QueryStrings: ["v"] });
    // The page itself names the hash it is keyed by.
    const page = readFileSync(join(dashboardDist, "index.html"), "utf8");
    expect(page).toMatch(/src="\/app\.js\?v=[0-9a-f]+"/);
    expect(page).toMatch(/href="\/app\.css\?v=[0-9a-f]+"/);
  });

  it("deploys the page after the files it names, so browsers ask for it again and keep the rest", () => {
    const deployments = Object.entries(template.findResources("Custom::CDKBucketDeployment")) as [
      string,
      { Properties: Record<string, unknown>; DependsOn?: string[] },
    ][];
    const [filesId, files] = deployments.find(([, d]) => d.Properties.Include === undefined) ?? [];
    const [, page] = deployments.find(([, d]) => d.Properties.Include !== undefined) ?? [];
    expect(files?.Properties).toMatchObject({
      Exclude: ["index.html"],
      Prune: true,
      SystemMetadata: { "cache-control": "public, max-age=31536000, immutable" },
    });
    expect(page?.Properties).toMatchObject({
      Exclude: ["*"],
      Include: ["index.html"],
      // The files' deployment removes what a build no longer has; this one keeps them.
      Prune: false,
      SystemMetadata: { "cache-control": "no-cache" },
      DistributionPaths: ["/", "/index.html"],
    });
    expect(page?.DependsOn).toContain(filesId);
  });

  it("takes the CloudFront web ACL it is given, and none unless given one", () => {
    expect(distributionConfig(template, stack).WebACLId).toBeUndefined();
    const acl = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/attribution/abc";
    const guarded = synthServiceStack({ settings: { edgeWebAclArn: acl } });
    expect(distributionConfig(guarded.template, guarded.stack).WebACLId).toBe(acl);
  });

  it("sends the service's content security policy, HSTS and no framing with the page", () => {
    template.hasResourceProperties("AWS::CloudFront::ResponseHeadersPolicy", {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: { ContentSecurityPolicy: CONTENT_SECURITY_POLICY, Override: true },
          FrameOptions: { FrameOption: "DENY", Override: true },
          StrictTransportSecurity: Match.objectLike({ Override: true }),
          ContentTypeOptions: { Override: true },
        }),
      },
    });
  });

  it("logs its deployment function to a log group of the stack, kept as every other (logRetention)", () => {
    // Without one, Lambda makes the function's log group itself, outside the stack, and
    // keeps it forever. Every function of the stack is held to the same.
    const resources = template.toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >;
    const retention = (id: string) =>
      resources[id]?.Type === "AWS::Logs::LogGroup"
        ? resources[id]?.Properties.RetentionInDays
        : undefined;
    const functions = Object.entries(resources).filter(
      ([, resource]) => resource.Type === "AWS::Lambda::Function",
    );
    const deployment = functions.filter(([id]) => id.startsWith("CustomCDKBucketDeployment"));
    expect(deployment).toHaveLength(1);
    for (const [id, fn] of functions) {
      const logs = (fn.Properties.LoggingConfig as { LogGroup?: { Ref?: string } } | undefined)
        ?.LogGroup?.Ref;
      expect({ id, retention: logs && retention(logs) }).toEqual({ id, retention: 30 });
    }
  });

  it("outputs the dashboard's URL", () => {
    expect(template.toJSON().Outputs.DashboardUrl.Value).toEqual(
      stack.resolve(stack.dashboard.url),
    );
  });
});

describe("the dashboard's people (Cognito)", () => {
  it("lets no one sign themselves up, and asks for strong passwords", () => {
    template.hasResourceProperties("AWS::Cognito::UserPool", {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: {
        PasswordPolicy: Match.objectLike({
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        }),
      },
    });
  });

  it("has one app client, for the sign-in function's admin password flow, without a secret", () => {
    template.resourceCountIs("AWS::Cognito::UserPoolClient", 1);
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      ExplicitAuthFlows: Match.arrayWith(["ALLOW_ADMIN_USER_PASSWORD_AUTH"]),
      GenerateSecret: false,
      PreventUserExistenceErrors: "ENABLED",
    });
  });

  it("has TOTP as the only second factor, optional at the pool (the sign-in requires it of admins)", () => {
    template.hasResourceProperties("AWS::Cognito::UserPool", {
      MfaConfiguration: "OPTIONAL",
      EnabledMfas: ["SOFTWARE_TOKEN_MFA"],
    });
    const [pool] = Object.values(template.findResources("AWS::Cognito::UserPool")) as {
      Properties: Record<string, unknown>;
    }[];
    // No SMS: no SNS role for Cognito to send codes with.
    expect(pool?.Properties.SmsConfiguration).toBeUndefined();
    expect(pool?.Properties.EnabledMfas).not.toContain("SMS_MFA");
  });

  it("waits for a TOTP code as long as the dashboard does, and keeps Cognito's tokens short", () => {
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      AuthSessionValidity: PENDING_SIGN_IN_LIFETIME_MS / 60_000,
      AccessTokenValidity: 5,
      IdTokenValidity: 5,
      TokenValidityUnits: Match.objectLike({ AccessToken: "minutes", IdToken: "minutes" }),
    });
  });

  it("lets the sign-in function check passwords and TOTP codes, and turn a new TOTP on, nothing else of Cognito", () => {
    const signIn = stack.api.routeFunctions["sign-in"];
    if (!signIn) throw new Error("no sign-in function");
    const cognito = statementsOfRole(template, signIn.role).filter((s) =>
      actionsOf(s).some((a) => a.startsWith("cognito-idp:")),
    );
    expect(cognito.flatMap(actionsOf).sort()).toEqual([
      "cognito-idp:AdminInitiateAuth",
      "cognito-idp:AdminRespondToAuthChallenge",
      "cognito-idp:AdminSetUserMFAPreference",
    ]);
    expect(cognito[0]?.Resource).toEqual(stack.resolve(stack.dashboardUsers.pool.userPoolArn));
  });
});
