/**
 * Limits per route and per app on the REST API (docs/aws.md#limits). Each route's method is
 * throttled on the stage, all apps together, by its kind of traffic (ROUTE_LOADS and apiPeak
 * in lib/settings.ts); and each app by a usage plan, which API Gateway applies to each of its
 * API keys on its own: the authorizer names the key a request counts against (its app's slot,
 * src/http/usage-keys.ts), and this plan holds every slot's key, with a share of each route's
 * limit per key. One app, or one leaked SDK key, so never takes a route's whole capacity.
 *
 * The keys live in a nested stack: two resources each, 400 in all, which the service's own stack
 * has no room for under CloudFormation's 500. They are made a few at a time, as API Gateway
 * allows CreateApiKey 5 times a second an account.
 */
import { NestedStack } from "aws-cdk-lib";
import {
  CfnApiKey,
  CfnUsagePlanKey,
  type Method,
  type RestApi,
  UsagePlan,
} from "aws-cdk-lib/aws-apigateway";
import type { Construct } from "constructs";
import type { Route, RouteId } from "../src/http/routes.ts";
import { USAGE_KEY_SLOTS, usageKeyValue } from "../src/http/usage-keys.ts";
import { ROUTE_LOADS, type StackSettings } from "./settings.ts";

export interface Throttle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/** What the limits are derived from, the settings' part. */
export type Limits = Pick<StackSettings, "apiPeak" | "burstSeconds" | "appShare">;

const withBurst = (rateLimit: number, limits: Limits): Throttle => ({
  rateLimit,
  burstLimit: Math.ceil(rateLimit * limits.burstSeconds),
});

/** A route's method throttle on the stage, all apps together: its kind's peak. */
export const routeThrottle = (route: { readonly id: RouteId }, limits: Limits): Throttle =>
  withBurst(limits.apiPeak[ROUTE_LOADS[route.id]], limits);

/** The stage's default, which every route's own throttle overrides: the kinds' peaks summed. */
export const stageThrottle = (limits: Limits): Throttle =>
  withBurst(
    Object.values(limits.apiPeak).reduce((sum, rate) => sum + rate, 0),
    limits,
  );

/** One app's share of a throttle (at least one request a second, and a burst of one). */
export const appThrottle = (throttle: Throttle, limits: Limits): Throttle => ({
  rateLimit: Math.max(1, Math.ceil(throttle.rateLimit * limits.appShare)),
  burstLimit: Math.max(1, Math.ceil(throttle.burstLimit * limits.appShare)),
});

/** How many keys CloudFormation makes at once (in parallel chains, each one after another). */
const KEY_CHAINS = 4;

export interface AppUsagePlanProps {
  readonly api: RestApi;
  /** The keyed routes' methods, whose usage-plan throttles are the app's share of theirs. */
  readonly methods: readonly {
    readonly route: Route & { readonly id: RouteId };
    readonly method: Method;
  }[];
  readonly limits: Limits;
}

export class AppUsagePlan extends NestedStack {
  readonly plan: UsagePlan;
  /** Each slot's key, in slot order. */
  readonly keys: readonly CfnApiKey[];

  constructor(scope: Construct, id: string, props: AppUsagePlanProps) {
    super(scope, id, {
      description: "Attribution service: the API's usage plan and its keys, one per app slot",
    });
    const { api, limits } = props;
    this.plan = new UsagePlan(this, "Plan", {
      description:
        "Each key is the apps of one slot (src/http/usage-keys.ts): a share of the stage's limits, route by route",
      throttle: appThrottle(stageThrottle(limits), limits),
      apiStages: [
        {
          stage: api.deploymentStage,
          throttle: props.methods.map(({ route, method }) => ({
            method,
            throttle: appThrottle(routeThrottle(route, limits), limits),
          })),
        },
      ],
    });

    const keys: CfnApiKey[] = [];
    for (let slot = 0; slot < USAGE_KEY_SLOTS; slot++) {
      const key = new CfnApiKey(this, `Key${slot}`, {
        enabled: true,
        value: usageKeyValue(api.restApiId, slot),
        description: `The usage-plan key of the apps in slot ${slot}; named by the authorizer, never sent by a caller`,
      });
      const before = keys[slot - KEY_CHAINS];
      if (before) key.node.addDependency(before);
      new CfnUsagePlanKey(this, `PlanKey${slot}`, {
        keyId: key.ref,
        keyType: "API_KEY",
        usagePlanId: this.plan.usagePlanId,
      });
      keys.push(key);
    }
    this.keys = keys;
  }
}
