import { Template } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { GATEWAY_ERRORS } from "../src/http/gateway-errors.ts";
import { INGEST_LIMITS } from "../src/ingest/limits.ts";
import { LINK_LIMITS } from "../src/links/link-limits.ts";
import { propertiesOf, testApp } from "./stack.test-support.ts";
import {
  COUNTED_EDGE_RULES,
  COUNTED_RULES,
  EDGE_REGION,
  EdgeWebAclStack,
  webAclProps,
} from "./web-acl.ts";

type Rule = {
  name: string;
  priority: number;
  statement: {
    managedRuleGroupStatement?: {
      name: string;
      ruleActionOverrides?: { name: string; actionToUse: unknown }[];
    };
    rateBasedStatement?: { limit: number; aggregateKeyType: string };
  };
  action?: { block?: { customResponse?: { responseCode: number; customResponseBodyKey: string } } };
};

const rulesOf = (scope: "REGIONAL" | "CLOUDFRONT") => webAclProps(scope, 5_000).rules as Rule[];

const counted = (rules: Rule[]) =>
  rules
    .find(
      (rule) => rule.statement.managedRuleGroupStatement?.name === "AWSManagedRulesCommonRuleSet",
    )
    ?.statement.managedRuleGroupStatement?.ruleActionOverrides?.map((override) => {
      expect(override.actionToUse).toEqual({ count: {} });
      return override.name;
    })
    .sort();

describe("the web ACLs' rules", () => {
  it.each(["REGIONAL", "CLOUDFRONT"] as const)(
    "%s: a per-address rate limit, then AWS's IP reputation list and common rule set",
    (scope) => {
      const rules = rulesOf(scope);
      expect(rules.map((rule) => rule.priority)).toEqual([0, 1, 2]);
      expect(rules[0]?.statement.rateBasedStatement).toMatchObject({
        limit: 5_000,
        aggregateKeyType: "IP",
      });
      expect(rules.slice(1).map((rule) => rule.statement.managedRuleGroupStatement?.name)).toEqual([
        "AWSManagedRulesAmazonIpReputationList",
        "AWSManagedRulesCommonRuleSet",
      ]);
      expect(webAclProps(scope, 5_000)).toMatchObject({ scope, defaultAction: { allow: {} } });
    },
  );

  it("answers an address over its rate 429, in the service's error shape, so the SDKs retry", () => {
    const props = webAclProps("REGIONAL", 5_000);
    const [rate] = props.rules as Rule[];
    expect(rate?.action?.block?.customResponse).toEqual({
      responseCode: 429,
      customResponseBodyKey: "throttled",
    });
    const bodies = props.customResponseBodies as Record<string, { content: string }>;
    expect(JSON.parse(bodies.throttled?.content ?? "")).toEqual({
      error: "Too Many Requests",
      detail: GATEWAY_ERRORS.throttled.detail,
    });
  });

  it("only counts the common rules that would refuse the SDKs' batches, each with its reason", () => {
    // The SDKs' batches are over the body-size rule's 8 KB, so it may not block.
    expect(INGEST_LIMITS.maxBodyBytes).toBeGreaterThan(8 * 1024);
    expect(counted(rulesOf("REGIONAL"))).toEqual(Object.keys(COUNTED_RULES).sort());
    expect(counted(rulesOf("REGIONAL"))).toContain("SizeRestrictions_BODY");
    // Everything else of the set still blocks (size of URI path and cookies, bad bots, …).
    expect(counted(rulesOf("REGIONAL"))).not.toContain("SizeRestrictions_QUERYSTRING");
    for (const reason of Object.values({ ...COUNTED_RULES, ...COUNTED_EDGE_RULES })) {
      expect(reason.length).toBeGreaterThan(40);
    }
  });

  it("also counts the query size rule on CloudFront, whose taps carry ad networks' parameters", () => {
    expect(LINK_LIMITS.maxParams * LINK_LIMITS.maxParamValueLength).toBeGreaterThan(2 * 1024);
    expect(counted(rulesOf("CLOUDFRONT"))).toEqual(
      Object.keys({ ...COUNTED_RULES, ...COUNTED_EDGE_RULES }).sort(),
    );
  });
});

describe("the CloudFront web ACL's stack", () => {
  it("is in us-east-1 whatever the service's region, and outputs the ACL's ARN", () => {
    const app = testApp();
    const edge = new EdgeWebAclStack(app, "Edge", {
      env: { account: "123456789012", region: "eu-west-1" },
      addressRateLimit: 7_000,
    });
    expect(edge.region).toBe(EDGE_REGION);
    const template = Template.fromStack(edge);
    const [acl] = Object.values(template.findResources("AWS::WAFv2::WebACL"));
    expect(propertiesOf(acl)).toMatchObject({ Scope: "CLOUDFRONT" });
    expect(JSON.stringify(propertiesOf(acl).Rules)).toContain('"Limit":7000');
    expect(template.toJSON().Outputs.EdgeWebAclArn.Value).toEqual(edge.resolve(edge.acl.attrArn));
  });
});
