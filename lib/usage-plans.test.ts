import { Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { methodsOf, ROUTES } from "../src/http/routes.ts";
import { USAGE_KEY_SLOTS, usageKeyValue, usageSlotOf } from "../src/http/usage-keys.ts";
import type { ServiceStack } from "./service-stack.ts";
import { DEFAULT_SETTINGS, ROUTE_LOADS } from "./settings.ts";
import { nestedStackIdOf, propertiesOf, sharedServiceStack } from "./stack.test-support.ts";
import { appThrottle, routeThrottle, stageThrottle } from "./usage-plans.ts";

let stack: ServiceStack;
let plan: Template;

beforeAll(() => {
  ({ stack } = sharedServiceStack());
  plan = Template.fromStack(stack.api.usagePlan);
});

describe("the limits' arithmetic", () => {
  const limits = { ...DEFAULT_SETTINGS, apiPeak: { ...DEFAULT_SETTINGS.apiPeak, sdk: 300 } };

  it("gives a route its kind's peak, with a burst of burstSeconds of it", () => {
    expect(routeThrottle({ id: "events" }, limits)).toEqual({
      rateLimit: 300,
      burstLimit: 300 * limits.burstSeconds,
    });
    expect(routeThrottle({ id: "sign-in" }, limits).rateLimit).toBe(limits.apiPeak.signIn);
  });

  it("makes the stage's default the kinds' peaks summed", () => {
    const sum = Object.values(limits.apiPeak).reduce((a, b) => a + b, 0);
    expect(stageThrottle(limits)).toEqual({
      rateLimit: sum,
      burstLimit: sum * limits.burstSeconds,
    });
  });

  it("gives one app its share, never less than one request", () => {
    expect(appThrottle({ rateLimit: 300, burstLimit: 600 }, { ...limits, appShare: 0.25 })).toEqual(
      { rateLimit: 75, burstLimit: 150 },
    );
    expect(appThrottle({ rateLimit: 1, burstLimit: 1 }, { ...limits, appShare: 0.1 })).toEqual({
      rateLimit: 1,
      burstLimit: 1,
    });
  });
});

describe("the apps' usage plan", () => {
  const planProperties = () =>
    propertiesOf(Object.values(plan.findResources("AWS::ApiGateway::UsagePlan"))[0]);

  it("limits each key to the app's share of the stage, and of each keyed route", () => {
    const properties = planProperties();
    expect(properties.Throttle).toEqual({
      RateLimit: appThrottle(stageThrottle(DEFAULT_SETTINGS), DEFAULT_SETTINGS).rateLimit,
      BurstLimit: appThrottle(stageThrottle(DEFAULT_SETTINGS), DEFAULT_SETTINGS).burstLimit,
    });
    const [apiStage] = properties.ApiStages as { Throttle: Record<string, unknown> }[];
    const keyed = ROUTES.filter((route) => route.scope !== null);
    // A GET route's HEAD is a method of its own, with the route's share.
    expect(Object.keys(apiStage?.Throttle ?? {}).sort()).toEqual(
      keyed.flatMap((route) => methodsOf(route).map((m) => `${route.path}/${m}`)).sort(),
    );
    for (const route of keyed) {
      const share = appThrottle(routeThrottle(route, DEFAULT_SETTINGS), DEFAULT_SETTINGS);
      for (const method of methodsOf(route)) {
        expect(apiStage?.Throttle[`${route.path}/${method}`], route.id).toEqual({
          RateLimit: share.rateLimit,
          BurstLimit: share.burstLimit,
        });
      }
      // Never the whole route: the other apps keep the rest.
      expect(share.rateLimit, route.id).toBeLessThan(
        DEFAULT_SETTINGS.apiPeak[ROUTE_LOADS[route.id]],
      );
    }
  });

  it("holds a key for every slot, each in the plan", () => {
    const keys = plan.findResources("AWS::ApiGateway::ApiKey");
    expect(Object.keys(keys)).toHaveLength(USAGE_KEY_SLOTS);
    const inPlan = Object.values(plan.findResources("AWS::ApiGateway::UsagePlanKey"));
    expect(inPlan).toHaveLength(USAGE_KEY_SLOTS);
    expect(new Set(inPlan.map((k) => JSON.stringify(propertiesOf(k).KeyId))).size).toBe(
      USAGE_KEY_SLOTS,
    );
  });

  it("makes each key the value the authorizer names for the apps of its slot", () => {
    // The nested stack is given the API's id as a parameter; the authorizer reads it from the
    // method ARN. Resolved with one id, the keys are exactly the values the authorizer names.
    const values = Object.values(plan.findResources("AWS::ApiGateway::ApiKey")).map((key) => {
      const value = propertiesOf(key).Value as { "Fn::Join": [string, unknown[]] };
      const [, parts] = value["Fn::Join"];
      return parts.map((part) => (typeof part === "string" ? part : "a1b2c3d4e5")).join("");
    });
    expect(new Set(values)).toEqual(
      new Set(
        Array.from({ length: USAGE_KEY_SLOTS }, (_, slot) => usageKeyValue("a1b2c3d4e5", slot)),
      ),
    );
    expect(values).toContain(usageKeyValue("a1b2c3d4e5", usageSlotOf("app:com.example.game")));
    for (const key of Object.values(plan.findResources("AWS::ApiGateway::ApiKey"))) {
      expect(propertiesOf(key).Enabled).toBe(true);
    }
  });

  it("makes the keys a few at a time, within API Gateway's CreateApiKey rate", () => {
    const keys = plan.findResources("AWS::ApiGateway::ApiKey");
    const independent = Object.values(keys).filter((key) => !key.DependsOn);
    expect(independent.length).toBeGreaterThan(0);
    expect(independent.length).toBeLessThanOrEqual(5);
  });

  it("lives in a nested stack of its own, so the service's stack stays under 500 resources", () => {
    const { stack: service, template } = sharedServiceStack();
    template.resourceCountIs("AWS::ApiGateway::ApiKey", 0);
    expect(template.toJSON().Resources[nestedStackIdOf(service.api.usagePlan)]?.Type).toBe(
      "AWS::CloudFormation::Stack",
    );
    expect(Object.keys(template.toJSON().Resources).length).toBeLessThan(500);
    expect(Object.keys(plan.toJSON().Resources).length).toBeLessThanOrEqual(500);
  });
});
