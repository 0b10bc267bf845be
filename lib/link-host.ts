/**
 * The link host on AWS: an HTTP API (API Gateway v2) built from LINK_HOST_ROUTES, one function
 * per route, behind a CloudFront distribution that caches nothing: every tap must reach a
 * function (it records the click, and the redirect depends on the tapper). An HTTP API rather
 * than the REST API: HTTP APIs cost $1.00 per million requests against the REST API's $3.50.
 * Payload format 1.0 gives the functions the same event shape as the REST API and the embedded
 * gateway.
 *
 * The distribution is what the world reaches (docs/aws.md#the-link-host): it takes the
 * CloudFront web ACL when one is given (HTTP APIs take none), and forwards the viewer's
 * address (`CloudFront-Viewer-Address`), which the tap records. Nothing reaches the API around
 * it: the distribution adds a secret header that an authorizer on every route checks before
 * any handler runs, and with a custom domain the API's own execute-api URL is off.
 */
import { CfnOutput, Duration, Stack } from "aws-cdk-lib";
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
import {
  HttpLambdaAuthorizer,
  HttpLambdaResponseType,
} from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  OriginSslPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { HttpOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { LINK_HOST_ROUTES, type LinkHostRouteId } from "../src/http/routes.ts";
import { FETCH_HEADERS, FOLDED_FETCH_HEADER } from "../src/touches/fetch-purpose.ts";
import { type FunctionBinding, routeFunction } from "./api.ts";
import { ORIGIN_HEADER } from "./link-host-origin.ts";
import { acknowledge } from "./nag.ts";
import { pascal } from "./naming.ts";
import { type EntryResolver, ServiceFunction } from "./service-function.ts";
import { DEFAULT_SETTINGS, type StackSettings } from "./settings.ts";

/** The origin check's entry: infrastructure of this construct, not a row of the manifest. */
const ORIGIN_CHECK_ENTRY = new URL("./link-host-origin.ts", import.meta.url).pathname;

/**
 * What the tap reads of a request, forwarded by the distribution: its user agent (platform,
 * bot), its language and the viewer's address; the client hints that tell what Chrome's
 * reduced agent hides (`Sec-CH-UA`, which every Chromium browser sends, says it can tell them;
 * the tap asks for the other two, src/touches/clicks.ts); why the browser asks (a prefetch, a
 * page embedding the link: src/touches/fetch-purpose.ts), folded into one header by
 * FOLD_FETCH_HEADERS, as a policy forwards 10 headers at most; and the host asked when it is the
 * link host's own domain, which the `.well-known` files are chosen by. The answer's headers
 * (`Accept-CH`, `Vary`, the landing page's policy) reach the viewer as the function
 * sets them: the distribution has no response headers policy.
 */
export const FORWARDED_HEADERS = [
  "User-Agent",
  "Accept-Language",
  "CloudFront-Viewer-Address",
  "Sec-CH-UA",
  "Sec-CH-UA-Model",
  "Sec-CH-UA-Platform-Version",
  FOLDED_FETCH_HEADER,
];

/**
 * A route's path as a distribution's path pattern: each `{parameter}` any one segment's text,
 * and anything after it, as the trailing slash Apple's devices post to.
 */
export const distributionPathPattern = (path: string): string =>
  `${path.replace(/\{[^}]+\}/g, "*")}*`;

/**
 * Apple's devices post to `…/report-attribution/`, with a final slash, and the HTTP API's route
 * has none; whether API Gateway takes the one for the other is not written down. So the
 * distribution hands the origin the route's own path: this CloudFront Function, on the viewer's
 * request, on the behaviour of the routes that take a POST.
 */
export const TRIM_FINAL_SLASH = `function handler(event) {
  var request = event.request;
  if (request.uri.length > 1 && request.uri.charAt(request.uri.length - 1) === "/") {
    request.uri = request.uri.substring(0, request.uri.length - 1);
  }
  return request;
}`;

/**
 * The distribution's function on the viewer's request for a tap: the headers that say why a
 * browser asks (FETCH_HEADERS) folded into one (FOLDED_FETCH_HEADER), which the tap reads as
 * it reads them apart; one a viewer sent of that name is replaced, or removed.
 */
export const FOLD_FETCH_HEADERS = `function handler(event) {
  var request = event.request;
  var headers = request.headers;
  var names = ${JSON.stringify(FETCH_HEADERS)};
  var parts = [];
  for (var i = 0; i < names.length; i++) {
    var header = headers[names[i]];
    if (header) parts.push(names[i] + "=" + encodeURIComponent(header.value));
  }
  if (parts.length > 0) headers[${JSON.stringify(FOLDED_FETCH_HEADER)}] = { value: parts.join("&") };
  else delete headers[${JSON.stringify(FOLDED_FETCH_HEADER)}];
  return request;
}`;

export interface LinkHostProps {
  /** One binding per link host route: a route added without one fails to compile. */
  readonly routes: { readonly [K in LinkHostRouteId]: FunctionBinding };
  readonly domain?: StackSettings["linkDomain"];
  readonly throttle?: StackSettings["linkThrottle"];
  /** The CLOUDFRONT-scope web ACL of the distribution, if any (lib/web-acl.ts). */
  readonly webAclArn?: string | null;
  /** The bucket that receives the distribution's access logs. */
  readonly logsBucket: IBucket;
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

export class LinkHost extends Construct {
  readonly api: HttpApi;
  readonly distribution: Distribution;
  readonly routeFunctions: Readonly<Record<LinkHostRouteId, ServiceFunction>>;
  /** Lets a request in only from the distribution. */
  readonly originCheck: ServiceFunction;
  /** What links name: `https://<custom domain>` or the distribution's, without a final slash. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: LinkHostProps) {
    super(scope, id);
    const logRetention = props.logRetention ?? DEFAULT_SETTINGS.logRetention;
    const throttle = props.throttle ?? DEFAULT_SETTINGS.linkThrottle;
    const domain = props.domain ?? null;

    this.api = new HttpApi(this, "Api", {
      description: "Attribution service link host: taps on links, and the .well-known files",
      createDefaultStage: true,
      // With a domain the distribution's origin is the domain: the API's own URL is left to no one.
      disableExecuteApiEndpoint: domain !== null,
    });

    // The secret the distribution sends and the authorizer checks, made by Secrets Manager.
    const originSecret = new Secret(this, "OriginSecret", {
      description:
        "The link host's CloudFront distribution sends it; the link host's API checks it",
      generateSecretString: { excludePunctuation: true, passwordLength: 48 },
    });
    acknowledge(
      originSecret,
      "AwsSolutions-SMG4",
      "The distribution's origin header and the authorizer's environment take the value at deploy; a rotation without a deploy would refuse every tap. A new value comes by replacing the secret in a deploy.",
    );
    const secretValue = originSecret.secretValue.unsafeUnwrap();
    this.originCheck = new ServiceFunction(this, "OriginCheck", {
      name: "link-host-origin",
      memoryMb: 128,
      timeout: Duration.seconds(5),
      environment: { ORIGIN_SECRET: secretValue },
      entryFor: () => ORIGIN_CHECK_ENTRY,
      logRetention,
    });
    const authorizer = new HttpLambdaAuthorizer("OriginCheck", this.originCheck.function, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      // Without the header API Gateway refuses at once; with it, one answer per value an hour.
      identitySource: [`$request.header.${ORIGIN_HEADER}`],
      resultsCacheTtl: Duration.hours(1),
    });

    const functions = {} as Record<LinkHostRouteId, ServiceFunction>;
    for (const route of LINK_HOST_ROUTES) {
      const fn = routeFunction(this, route, props.routes[route.id], {
        entryFor: props.entryFor,
        logRetention,
      });
      functions[route.id] = fn;
      this.api.addRoutes({
        path: route.path,
        // HEAD answered as the GET (link checkers and some crawlers ask so), recording nothing;
        // without its own route it would fall to the catch-all's 404.
        methods:
          route.method === "GET" ? [HttpMethod.GET, HttpMethod.HEAD] : [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${pascal(route.id)}Integration`, fn.function, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_1_0,
        }),
        authorizer,
      });
    }
    this.routeFunctions = functions;

    // Any other method or path gets the tap route's plain 404 page, as on the embedded link
    // host, rather than API Gateway's JSON: a tap on a mangled link lands on a page.
    new HttpRoute(this, "NotFoundRoute", {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration("NotFoundIntegration", functions.click.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_1_0,
      }),
      authorizer,
    });

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
          authorizerError: "$context.authorizer.error",
        }),
      };
      stage.defaultRouteSettings = {
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
      };
    }

    // The distribution's origin: the API's custom domain, asked for by its own name (the Host
    // forwarded), or without one the API's execute-api host, asked for by that.
    let originHost: string;
    const appHosts = domain?.appHosts ?? [];
    if (domain) {
      const regional = Certificate.fromCertificateArn(this, "Certificate", domain.certificateArn);
      const apiDomain = new DomainName(this, "Domain", {
        domainName: domain.name,
        certificate: regional,
      });
      new ApiMapping(this, "Mapping", { api: this.api, domainName: apiDomain });
      originHost = apiDomain.regionalDomainName;
      // An app's own host reaches the same origin with its own name in Host, which API Gateway
      // routes by its custom domain: one of each, under the same certificate, named by the host
      // so that adding or removing one leaves the others in place.
      for (const host of appHosts) {
        const appDomain = new DomainName(this, `AppDomain ${host}`, {
          domainName: host,
          certificate: regional,
        });
        new ApiMapping(this, `AppMapping ${host}`, { api: this.api, domainName: appDomain });
      }
    } else {
      const stack = Stack.of(this);
      originHost = `${this.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    }
    const forwarded = new OriginRequestPolicy(this, "OriginRequest", {
      comment: "Attribution service link host: what a tap reads, the viewer's address included",
      headerBehavior: OriginRequestHeaderBehavior.allowList(
        ...(domain ? ["Host"] : []),
        ...FORWARDED_HEADERS,
      ),
      // A tap records the tapped URL's own query (an ad network's click ids).
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
      cookieBehavior: OriginRequestCookieBehavior.none(),
    });
    const behavior = {
      origin: new HttpOrigin(originHost, {
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [OriginSslPolicy.TLS_V1_2],
        customHeaders: { [ORIGIN_HEADER]: secretValue },
      }),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      // Every tap must reach the tap function: nothing is answered from a cache.
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: forwarded,
    };
    const foldFetchHeaders = new EdgeFunction(this, "FoldFetchHeaders", {
      comment: "Attribution service link host: why a browser asks, in one forwarded header",
      code: FunctionCode.fromInline(FOLD_FETCH_HEADERS),
      runtime: FunctionRuntime.JS_2_0,
    });
    const trimFinalSlash = new EdgeFunction(this, "TrimFinalSlash", {
      comment: "Attribution service link host: a postback's path as its route names it",
      code: FunctionCode.fromInline(TRIM_FINAL_SLASH),
      runtime: FunctionRuntime.JS_2_0,
    });
    this.distribution = new Distribution(this, "Distribution", {
      comment: "Attribution service link host",
      defaultBehavior: {
        ...behavior,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        functionAssociations: [
          { function: foldFetchHeaders, eventType: FunctionEventType.VIEWER_REQUEST },
        ],
      },
      // A route taking another method (Apple's devices post their postbacks' copies) is let
      // through on its own path; every other path stays GET and HEAD.
      additionalBehaviors: Object.fromEntries(
        LINK_HOST_ROUTES.filter((route) => route.method !== "GET").map((route) => [
          distributionPathPattern(route.path),
          {
            ...behavior,
            allowedMethods: AllowedMethods.ALLOW_ALL,
            functionAssociations: [
              { function: trimFinalSlash, eventType: FunctionEventType.VIEWER_REQUEST },
            ],
          },
        ]),
      ),
      ...(domain && {
        domainNames: [domain.name, ...appHosts],
        certificate: Certificate.fromCertificateArn(
          this,
          "EdgeCertificate",
          domain.edgeCertificateArn,
        ),
        minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      }),
      // The REST API the SDKs call answers on IPv4 only: a tap over IPv6 would record an
      // address that the install's, over IPv4, never matches.
      enableIpv6: false,
      httpVersion: HttpVersion.HTTP2_AND_3,
      ...(props.webAclArn && { webAclId: props.webAclArn }),
      enableLogging: true,
      logBucket: props.logsBucket,
      logFilePrefix: "link-host-cdn/",
    });
    acknowledge(
      this.distribution,
      "AwsSolutions-CFR1",
      "No geo restriction: ads run in every country, and a tap from anywhere is a click.",
    );
    if (!props.webAclArn) {
      acknowledge(
        this.distribution,
        "AwsSolutions-CFR2",
        "No CloudFront web ACL was given (-c edgeWebAclArn, made by lib/web-acl.ts's stack in us-east-1): the link host's stage is still throttled.",
      );
    }
    if (!domain) {
      acknowledge(
        this.distribution,
        "AwsSolutions-CFR4",
        "Without a custom domain the distribution's default certificate (*.cloudfront.net) fixes the minimum TLS version; with one it is TLSv1.2_2021.",
      );
    }

    if (domain) {
      new CfnOutput(this, "Target", {
        key: "LinkHostTarget",
        value: this.distribution.distributionDomainName,
        description: `Point ${[domain.name, ...appHosts].join(", ")} here (CNAME, or a Route 53 alias to the distribution)`,
      });
      this.baseUrl = `https://${domain.name}`;
    } else {
      this.baseUrl = `https://${this.distribution.distributionDomainName}`;
    }
  }
}
