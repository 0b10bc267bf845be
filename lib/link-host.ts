/**
 * The link host on AWS: an HTTP API (API Gateway v2) built from LINK_HOST_ROUTES, one function
 * per route, with an optional custom domain. An HTTP API rather than the
 * REST API or CloudFront: every tap must reach a function (it records the click, and the
 * redirect depends on the tapper), HTTP APIs cost $1.00 per million requests against the REST
 * API's $3.50, and they carry the caller's address to the function. Payload format 1.0 gives
 * the functions the same event shape as the REST API and the embedded gateway.
 */
import { CfnOutput } from "aws-cdk-lib";
import {
  ApiMapping,
  CfnStage,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  PayloadFormatVersion,
} from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { LINK_HOST_ROUTES, type LinkHostRouteId } from "../src/http/routes.ts";
import { type FunctionBinding, routeFunction } from "./api.ts";
import { acknowledge } from "./nag.ts";
import { pascal } from "./naming.ts";
import type { EntryResolver, ServiceFunction } from "./service-function.ts";
import { DEFAULT_SETTINGS, type StackSettings } from "./settings.ts";

export interface LinkHostProps {
  /** One binding per link host route: a route added without one fails to compile. */
  readonly routes: { readonly [K in LinkHostRouteId]: FunctionBinding };
  readonly domain?: StackSettings["linkDomain"];
  readonly throttle?: StackSettings["linkThrottle"];
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

export class LinkHost extends Construct {
  readonly api: HttpApi;
  readonly routeFunctions: Readonly<Record<LinkHostRouteId, ServiceFunction>>;
  /** What links name: `https://<custom domain>` or the API's own URL, without a final slash. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: LinkHostProps) {
    super(scope, id);
    const logRetention = props.logRetention ?? DEFAULT_SETTINGS.logRetention;
    const throttle = props.throttle ?? DEFAULT_SETTINGS.linkThrottle;

    this.api = new HttpApi(this, "Api", {
      description: "Attribution service link host: taps on links, and the .well-known files",
      createDefaultStage: true,
    });

    const functions = {} as Record<LinkHostRouteId, ServiceFunction>;
    for (const route of LINK_HOST_ROUTES) {
      const fn = routeFunction(this, route, props.routes[route.id], {
        entryFor: props.entryFor,
        logRetention,
      });
      functions[route.id] = fn;
      const [apiRoute] = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${pascal(route.id)}Integration`, fn.function, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_1_0,
        }),
      });
      if (apiRoute) {
        acknowledge(
          apiRoute,
          "AwsSolutions-APIG4",
          `${route.method} ${route.path} is public by design. ${route.publicReason}`,
        );
      }
    }
    this.routeFunctions = functions;

    // Any other method or path gets the tap route's plain 404 page, as on the embedded link
    // host, rather than API Gateway's JSON: a tap on a mangled link lands on a page.
    const notFound = new HttpRoute(this, "NotFoundRoute", {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration("NotFoundIntegration", functions.click.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_1_0,
      }),
    });
    acknowledge(
      notFound,
      "AwsSolutions-APIG4",
      "The catch-all route answers a plain 404 page for any path that is no link; it reads nothing.",
    );

    // Access logs and throttling on the default stage (the L2 stage exposes neither).
    const accessLogs = new LogGroup(this, "AccessLogs", { retention: logRetention });
    const stage = this.api.defaultStage?.node.defaultChild;
    if (stage instanceof CfnStage) {
      stage.accessLogSettings = {
        destinationArn: accessLogs.logGroupArn,
        format: JSON.stringify({
          requestId: "$context.requestId",
          requestTime: "$context.requestTime",
          ip: "$context.identity.sourceIp",
          method: "$context.httpMethod",
          path: "$context.path",
          status: "$context.status",
          responseLatency: "$context.responseLatency",
          integrationError: "$context.integrationErrorMessage",
        }),
      };
      stage.defaultRouteSettings = {
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
      };
    }

    if (props.domain) {
      const domain = new DomainName(this, "Domain", {
        domainName: props.domain.name,
        certificate: Certificate.fromCertificateArn(
          this,
          "Certificate",
          props.domain.certificateArn,
        ),
      });
      new ApiMapping(this, "Mapping", { api: this.api, domainName: domain });
      new CfnOutput(this, "Target", {
        key: "LinkHostTarget",
        value: domain.regionalDomainName,
        description: `Point ${props.domain.name} (CNAME or alias) here`,
      });
      this.baseUrl = `https://${props.domain.name}`;
    } else {
      this.baseUrl = this.api.apiEndpoint;
    }
  }
}
