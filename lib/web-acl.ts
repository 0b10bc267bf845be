/**
 * The web ACLs in front of the public edges (docs/aws.md#guarded-edges): the REST API's stage
 * gets a regional one, and the link host's and the dashboard's CloudFront distributions a
 * CLOUDFRONT-scope one, which AWS keeps only in us-east-1: `EdgeWebAclStack` makes it there, in
 * a stack of its own, and the service's stack takes its ARN (`-c edgeWebAclArn=…`). Both have
 * the same rules, in order: a per-address rate limit answered 429 in the service's error
 * shape; AWS's IP reputation list; and AWS's common rule set, less the rules that would refuse
 * the service's own traffic, which only count (each with its reason below).
 */
import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import { CfnWebACL, CfnWebACLAssociation, type CfnWebACLProps } from "aws-cdk-lib/aws-wafv2";
import { Construct } from "constructs";
import { statusName } from "../src/http/errors.ts";
import { GATEWAY_ERRORS } from "../src/http/gateway-errors.ts";
import { INGEST_LIMITS } from "../src/ingest/limits.ts";
import { LINK_LIMITS } from "../src/links/link-limits.ts";

const BODIES_ARE_DATA =
  "A body is an app's events, touches, links or settings: free-form values the service stores as data and never renders as a page, opens as a path or fetches as a URL. A match would refuse a whole batch of real events.";

/** Rules of AWS's common rule set that only count, on both ACLs, and why. */
export const COUNTED_RULES: Readonly<Record<string, string>> = {
  SizeRestrictions_BODY: `The SDKs send events in batches of up to ${INGEST_LIMITS.maxEventsPerRequest} and ${INGEST_LIMITS.maxBodyBytes} bytes (src/ingest/limits.ts), servers their events and touches likewise: most such bodies are over the rule's 8 KB. The handlers check each body's size and shape.`,
  CrossSiteScripting_BODY: BODIES_ARE_DATA,
  GenericLFI_BODY: BODIES_ARE_DATA,
  GenericRFI_BODY: BODIES_ARE_DATA,
  EC2MetaDataSSRF_BODY: BODIES_ARE_DATA,
};

/** Rules that also only count on the CloudFront ACL, which the link host's taps pass. */
export const COUNTED_EDGE_RULES: Readonly<Record<string, string>> = {
  SizeRestrictions_QUERYSTRING: `A tapped link carries its ad network's parameters, up to ${LINK_LIMITS.maxParams} of up to ${LINK_LIMITS.maxParamValueLength} characters that the tap records (src/links/link-limits.ts): often over the rule's 2 KB.`,
};

export type WebAclScope = "REGIONAL" | "CLOUDFRONT";

/** WAF's window for the rate-based rule. */
const RATE_WINDOW_SECONDS = 300;

const visibility = (name: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName: `attribution-${name}`,
  sampledRequestsEnabled: true,
});

const managed = (
  priority: number,
  name: string,
  counted: readonly string[] = [],
): CfnWebACL.RuleProperty => ({
  name,
  priority,
  statement: {
    managedRuleGroupStatement: {
      vendorName: "AWS",
      name,
      ...(counted.length > 0 && {
        ruleActionOverrides: counted.map((rule) => ({ name: rule, actionToUse: { count: {} } })),
      }),
    },
  },
  overrideAction: { none: {} },
  visibilityConfig: visibility(name),
});

/** The web ACL's properties for a scope: the rules above, and allow anything else. */
export const webAclProps = (scope: WebAclScope, addressRateLimit: number): CfnWebACLProps => {
  const counted = Object.keys(
    scope === "CLOUDFRONT" ? { ...COUNTED_RULES, ...COUNTED_EDGE_RULES } : COUNTED_RULES,
  );
  return {
    scope,
    // CloudFormation takes letters, digits, spaces and a few signs (no apostrophe).
    description:
      scope === "REGIONAL"
        ? "Attribution service: the REST API stage"
        : "Attribution service: the link host and dashboard distributions",
    defaultAction: { allow: {} },
    visibilityConfig: visibility(`${scope.toLowerCase()}-acl`),
    customResponseBodies: {
      throttled: {
        contentType: "APPLICATION_JSON",
        content: JSON.stringify({
          error: statusName(GATEWAY_ERRORS.throttled.status),
          detail: GATEWAY_ERRORS.throttled.detail,
        }),
      },
    },
    rules: [
      {
        name: "AddressRate",
        priority: 0,
        statement: {
          rateBasedStatement: {
            limit: addressRateLimit,
            aggregateKeyType: "IP",
            evaluationWindowSec: RATE_WINDOW_SECONDS,
          },
        },
        // 429, as API Gateway's own throttling answers: the SDKs try again later.
        action: {
          block: {
            customResponse: {
              responseCode: GATEWAY_ERRORS.throttled.status,
              customResponseBodyKey: "throttled",
            },
          },
        },
        visibilityConfig: visibility("address-rate"),
      },
      managed(1, "AWSManagedRulesAmazonIpReputationList"),
      managed(2, "AWSManagedRulesCommonRuleSet", counted),
    ],
  };
};

/** The REST API stage's web ACL and its association. */
export class RegionalWebAcl extends Construct {
  readonly acl: CfnWebACL;

  constructor(
    scope: Construct,
    id: string,
    props: { readonly stageArn: string; readonly addressRateLimit: number },
  ) {
    super(scope, id);
    this.acl = new CfnWebACL(this, "Acl", webAclProps("REGIONAL", props.addressRateLimit));
    new CfnWebACLAssociation(this, "Association", {
      resourceArn: props.stageArn,
      webAclArn: this.acl.attrArn,
    });
  }
}

/** Where AWS keeps CLOUDFRONT-scope web ACLs. */
export const EDGE_REGION = "us-east-1";

export interface EdgeWebAclStackProps extends StackProps {
  readonly addressRateLimit: number;
}

/**
 * The CloudFront web ACL, in us-east-1 whatever the service's region: deployed on its own
 * (`npx cdk deploy AttributionServiceEdge -c edgeWebAclStack=true`, docs/deploy.md), its output
 * `EdgeWebAclArn` given to the service's stack as `-c edgeWebAclArn=…`.
 */
export class EdgeWebAclStack extends Stack {
  readonly acl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeWebAclStackProps) {
    super(scope, id, {
      description: "Attribution service: the web ACL of its CloudFront distributions",
      ...props,
      env: { ...props.env, region: EDGE_REGION },
    });
    this.acl = new CfnWebACL(this, "Acl", webAclProps("CLOUDFRONT", props.addressRateLimit));
    new CfnOutput(this, "EdgeWebAclArn", {
      value: this.acl.attrArn,
      description: "Give it to the service's stack: -c edgeWebAclArn=<this>",
    });
  }
}
