/**
 * The REST API, built from the route table in src/http/routes.ts: one resource and method per
 * route, each backed by its function (a route group's routes by their group's one function,
 * src/functions/manifest.ts), every method behind the API-key TOKEN authorizer (or,
 * for the routes the dashboard calls, the same function as a REQUEST authorizer that also takes
 * a session cookie) but the public ones (null scope), which have none.
 * Streaming routes use Lambda response streaming through the proxy integration
 * (`responseTransferMode: STREAM`), which also lifts API Gateway's 29 s and 10 MB limits.
 *
 * Each method is throttled by its route's kind of traffic, and each app by the usage plan whose
 * key the authorizer names (lib/usage-plans.ts); a regional web ACL guards the stage
 * (lib/web-acl.ts); a custom domain is optional.
 */
import { CfnOutput, Duration } from "aws-cdk-lib";
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  type DomainName,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  type LambdaIntegrationOptions,
  LogGroupLogDestination,
  type Method,
  type MethodDeploymentOptions,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseTransferMode,
  RestApi,
  SecurityPolicy,
  TokenAuthorizer,
} from "aws-cdk-lib/aws-apigateway";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { CfnPermission } from "aws-cdk-lib/aws-lambda";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { SESSION_ROUTE_SCOPES } from "../src/domain/sessions.ts";
import { API_FUNCTIONS, type ApiFunctionId, apiFunctionIdOf } from "../src/functions/manifest.ts";
import { methodsOf, ROUTES, type Route } from "../src/http/routes.ts";
import { addGatewayErrors } from "./gateway-responses.ts";
import { acknowledge } from "./nag.ts";
import { pascal } from "./naming.ts";
import { type BundledFile, type EntryResolver, ServiceFunction } from "./service-function.ts";
import { DEFAULT_SETTINGS, type StackSettings } from "./settings.ts";
import {
  AppUsagePlan,
  type Limits,
  routeThrottle,
  stageThrottle,
  type Throttle,
} from "./usage-plans.ts";
import { RegionalWebAcl } from "./web-acl.ts";

/** What a function is given: its environment, its grants and its data files, nothing more. */
export interface FunctionBinding {
  readonly environment: Record<string, string>;
  readonly grant: (role: IRole) => void;
  /** Project files shipped next to the bundle (see ServiceFunctionProps.assets). */
  readonly assets?: readonly BundledFile[];
}

/**
 * A function sized by its row (a route's, a worker's), given its binding's environment, files
 * and grants.
 */
export const rowFunction = (
  scope: Construct,
  id: string,
  row: { readonly id: string; readonly memoryMb: number; readonly timeoutSeconds: number },
  binding: FunctionBinding,
  options: { readonly entryFor?: EntryResolver; readonly logRetention?: RetentionDays },
): ServiceFunction => {
  const fn = new ServiceFunction(scope, id, {
    name: row.id,
    memoryMb: row.memoryMb,
    timeout: Duration.seconds(row.timeoutSeconds),
    environment: binding.environment,
    assets: binding.assets,
    entryFor: options.entryFor,
    logRetention: options.logRetention,
  });
  binding.grant(fn.role);
  return fn;
};

/** A route's function: the same for the API's routes and the link host's. */
export const routeFunction = (
  scope: Construct,
  route: Route,
  binding: FunctionBinding,
  options: { readonly entryFor?: EntryResolver; readonly logRetention: RetentionDays },
): ServiceFunction => rowFunction(scope, `${pascal(route.id)}Route`, route, binding, options);

/** API Gateway's limit for buffered integrations; streamed ones may run up to 15 minutes. */
const BUFFERED_TIMEOUT_LIMIT = Duration.seconds(29);
const STREAMED_TIMEOUT_LIMIT = Duration.minutes(15);

export interface AttributionApiProps {
  /**
   * One binding per API function (an ungrouped route's, a route group's), from its manifest
   * row: adding one without wiring it fails to compile. Null leaves the function and its
   * routes out (the export without lake queries, lib/settings.ts).
   */
  readonly functions: { readonly [K in ApiFunctionId]: FunctionBinding | null };
  readonly authorizer: FunctionBinding;
  /**
   * How long API Gateway caches an authorizer decision per key. Longer saves DynamoDB reads
   * and latency; a revoked key keeps working for up to this long.
   */
  readonly authorizerCacheTtl?: Duration;
  /** What each route's and each app's limits are derived from (lib/usage-plans.ts). */
  readonly limits?: Limits;
  /** Requests one address may make in 5 minutes before the stage's web ACL answers 429. */
  readonly addressRateLimit?: number;
  /** The API's custom domain, with its certificate in the stack's region. */
  readonly domain?: StackSettings["apiDomain"];
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

export class AttributionApi extends Construct {
  readonly api: RestApi;
  /** The stage's access log: every request, its status and why API Gateway refused it. */
  readonly accessLogs: LogGroup;
  readonly authorizerFunction: ServiceFunction;
  /** Each API function, by its id: what there is one of per function (alarms, concurrency). */
  readonly functions: Readonly<Partial<Record<ApiFunctionId, ServiceFunction>>>;
  /** The function serving each route, by the route's id; a group's routes share theirs. */
  readonly routeFunctions: Readonly<Record<string, ServiceFunction>>;
  /** The apps' usage plan and its keys (a nested stack). */
  readonly usagePlan: AppUsagePlan;
  readonly webAcl: RegionalWebAcl;
  /** The custom domain, when one is set. */
  readonly domain: DomainName | undefined;

  constructor(scope: Construct, id: string, props: AttributionApiProps) {
    super(scope, id);
    const logRetention = props.logRetention ?? DEFAULT_SETTINGS.logRetention;
    const limits = props.limits ?? DEFAULT_SETTINGS;
    const routes = ROUTES.filter((route) => props.functions[apiFunctionIdOf(route.id)]);
    const stage = stageThrottle(limits);

    const accessLogs = new LogGroup(this, "AccessLogs", { retention: logRetention });
    this.accessLogs = accessLogs;
    this.api = new RestApi(this, "Api", {
      description: "Attribution service API",
      // Regional: a streamed response may idle 5 minutes (30 s on edge-optimized endpoints).
      endpointTypes: [EndpointType.REGIONAL],
      // The account-level role API Gateway needs to write execution logs.
      cloudWatchRole: true,
      // The usage-plan key of a request is the one its authorizer answer names.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      deployOptions: {
        // The default of any method without its own, which every route has.
        throttlingRateLimit: stage.rateLimit,
        throttlingBurstLimit: stage.burstLimit,
        // A method's own settings replace the stage's, so each repeats them with its throttle.
        methodOptions: Object.fromEntries(
          routes.flatMap((route) =>
            methodsOf(route).map((method) => [
              `${route.path}/${method}`,
              { ...METHOD_LOGGING, ...methodThrottle(routeThrottle(route, limits)) },
            ]),
          ),
        ),
        tracingEnabled: true,
        ...METHOD_LOGGING,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: accessLogFormat(),
      },
    });
    // The stack outputs the URL once, as ApiUrl, next to the other names the CLI reads.
    this.api.node.tryRemoveChild("Endpoint");
    addGatewayErrors(this.api);

    this.authorizerFunction = new ServiceFunction(this, "Authorizer", {
      name: "authorizer",
      memoryMb: 256,
      timeout: Duration.seconds(10),
      environment: props.authorizer.environment,
      assets: props.authorizer.assets,
      entryFor: props.entryFor,
      logRetention,
    });
    props.authorizer.grant(this.authorizerFunction.role);
    const authorizer = new TokenAuthorizer(this, "KeyAuthorizer", {
      handler: this.authorizerFunction.function,
      // The spec's header: the API key itself, no scheme prefix.
      identitySource: IdentitySource.header("Authorization"),
      resultsCacheTtl: props.authorizerCacheTtl ?? DEFAULT_SETTINGS.authorizerCacheTtl,
    });
    // The routes the dashboard calls take a key or a session cookie: the same function as a
    // REQUEST authorizer, which sees the cookie, the method, the app named and the CSRF header.
    // Uncached (an answer depends on all of those), so with no identity source either.
    const sessionAuthorizer = new RequestAuthorizer(this, "SessionAuthorizer", {
      handler: this.authorizerFunction.function,
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });

    const functions: Partial<Record<ApiFunctionId, ServiceFunction>> = {};
    for (const row of API_FUNCTIONS) {
      const id = row.id as ApiFunctionId;
      const binding = props.functions[id];
      if (!binding) continue;
      // An ungrouped route's construct keeps the id it has always had (`<Id>Route`), so its
      // function is not replaced; a group's is `<Group>Routes`.
      functions[id] = rowFunction(
        this,
        `${pascal(id)}${row.kind === "route-group" ? "Routes" : "Route"}`,
        row,
        binding,
        { entryFor: props.entryFor, logRetention },
      );
    }
    this.functions = functions;

    const routeFunctions: Record<string, ServiceFunction> = {};
    const keyed: { route: (typeof ROUTES)[number]; method: Method }[] = [];
    for (const route of routes) {
      const fn = functions[apiFunctionIdOf(route.id)];
      if (!fn) continue;
      routeFunctions[route.id] = fn;

      // Each method its own integration; the permission to invoke the function is one for all
      // of its methods (below).
      const integration = new LambdaIntegration(fn.function, integrationOptions(route));
      const resource = this.api.root.resourceForPath(route.path);
      // A GET route answers HEAD too, as its GET with the body left off, as the embedded
      // gateway does (link checkers and monitors ask so).
      for (const verb of methodsOf(route)) {
        const operationName =
          verb === route.method ? route.id : `${route.id}-${verb.toLowerCase()}`;
        if (route.scope === null) {
          // A public route: no key, so no authorizer (the embedded gateway skips it too).
          const method = resource.addMethod(verb, integration, {
            authorizationType: AuthorizationType.NONE,
            operationName,
          });
          const reason = `${verb} ${route.path} is public by design. ${route.publicReason}`;
          acknowledge(method, "AwsSolutions-APIG4", reason);
          acknowledge(method, "AwsSolutions-COG4", reason);
          continue;
        }
        const withSession = (SESSION_ROUTE_SCOPES as readonly string[]).includes(route.scope);
        const method = resource.addMethod(verb, integration, {
          authorizer: withSession ? sessionAuthorizer : authorizer,
          authorizationType: AuthorizationType.CUSTOM,
          operationName,
          // The key is the app's, from the authorizer: its usage plan limits it.
          apiKeyRequired: true,
        });
        keyed.push({ route, method });
        acknowledge(
          method,
          "AwsSolutions-COG4",
          withSession
            ? "Callers authenticate with the spec's API keys or a dashboard session cookie, both checked by the Lambda REQUEST authorizer; Cognito checks passwords at sign-in only."
            : "Callers authenticate with the spec's API keys, checked by the Lambda TOKEN authorizer.",
        );
      }
    }
    this.routeFunctions = routeFunctions;
    this.#allowStageOnly();

    this.usagePlan = new AppUsagePlan(this, "UsagePlan", { api: this.api, methods: keyed, limits });
    this.webAcl = new RegionalWebAcl(this, "WebAcl", {
      stageArn: this.api.deploymentStage.stageArn,
      addressRateLimit: props.addressRateLimit ?? DEFAULT_SETTINGS.addressRateLimit,
    });

    this.domain = props.domain
      ? this.api.addDomainName("Domain", {
          domainName: props.domain.name,
          certificate: Certificate.fromCertificateArn(
            this,
            "Certificate",
            props.domain.certificateArn,
          ),
          endpointType: EndpointType.REGIONAL,
          securityPolicy: SecurityPolicy.TLS_1_2,
        })
      : undefined;
    if (this.domain && props.domain) {
      new CfnOutput(this, "Target", {
        key: "ApiTarget",
        value: this.domain.domainNameAliasDomainName,
        description: `Point ${props.domain.name} here (CNAME, or a Route 53 alias to this regional API domain)`,
      });
    }

    acknowledge(
      this.api,
      "AwsSolutions-APIG2",
      "Requests are validated in the handlers with zod: the spec answers a bad query with 422 and the {error, detail} body, which API Gateway's validators cannot produce.",
    );
    acknowledge(
      this.api,
      "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]",
      "The AWS-documented policy for API Gateway's account-level CloudWatch role, which execution logging (APIG6) requires.",
    );
  }

  /**
   * One permission per function for the whole API, rather than one per method: a route group's
   * methods would each add a resource to a stack near CloudFormation's 500. CDK's API-wide
   * permission names every stage, API Gateway's console test calls (`test-invoke-stage`) among
   * them, so its source is narrowed to the deployed stage: only requests to it invoke a function.
   */
  #allowStageOnly(): void {
    const deployed = this.api.arnForExecuteApi("*", "/*", this.api.deploymentStage.stageName);
    for (const permission of this.api.node.children) {
      if (permission instanceof CfnPermission) permission.sourceArn = deployed;
    }
  }

  /** The API's URL, its custom domain's when set; routes hang below it (`<url>api/v1/export`). */
  get url(): string {
    return this.domain ? `https://${this.domain.domainName}/` : this.api.url;
  }
}

/** Every method's metrics and logging. */
const METHOD_LOGGING = {
  metricsEnabled: true,
  loggingLevel: MethodLoggingLevel.ERROR,
  // Full request logging would write API keys (the Authorization header) to the logs.
  dataTraceEnabled: false,
} as const satisfies MethodDeploymentOptions;

const methodThrottle = (throttle: Throttle): MethodDeploymentOptions => ({
  throttlingRateLimit: throttle.rateLimit,
  throttlingBurstLimit: throttle.burstLimit,
});

/**
 * The integration waits as long as the route's own row says (a group's function may be sized
 * for a slower route of its group), within API Gateway's limit.
 */
const integrationOptions = (route: Route): LambdaIntegrationOptions => {
  const timeout = Duration.seconds(route.timeoutSeconds);
  const limit = route.streaming ? STREAMED_TIMEOUT_LIMIT : BUFFERED_TIMEOUT_LIMIT;
  return {
    proxy: true,
    // One permission for the function's methods, made once (AttributionApi narrows it).
    scopePermissionToMethod: false,
    responseTransferMode: route.streaming
      ? ResponseTransferMode.STREAM
      : ResponseTransferMode.BUFFERED,
    timeout: timeout.toSeconds() > limit.toSeconds() ? limit : timeout,
  };
};

/** JSON access logs: who called what, how it ended, and why API Gateway refused, if it did. */
const accessLogFormat = (): AccessLogFormat =>
  AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      requestTime: AccessLogField.contextRequestTime(),
      ip: AccessLogField.contextIdentitySourceIp(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
      method: AccessLogField.contextHttpMethod(),
      path: AccessLogField.contextPath(),
      status: AccessLogField.contextStatus(),
      responseLength: AccessLogField.contextResponseLength(),
      responseLatency: AccessLogField.contextResponseLatency(),
      principal: AccessLogField.contextAuthorizerPrincipalId(),
      authorizerStatus: AccessLogField.contextAuthorizeStatus(),
      integrationStatus: AccessLogField.contextIntegrationStatus(),
      errorType: AccessLogField.contextErrorResponseType(),
      error: AccessLogField.contextErrorMessage(),
      xrayTraceId: AccessLogField.contextXrayTraceId(),
    }),
  );
