/**
 * The REST API, built from the route table in src/http/routes.ts: one resource and method per
 * route, each backed by its function (a route group's routes by their group's one function,
 * src/functions/manifest.ts), every method behind the API-key TOKEN authorizer (or,
 * for the routes the dashboard calls, the same function as a REQUEST authorizer that also takes
 * a session cookie) but the public ones (null scope), which have none.
 * Streaming routes use Lambda response streaming through the proxy integration
 * (`responseTransferMode: STREAM`), which also lifts API Gateway's 29 s and 10 MB limits.
 *
 * The resources and methods are a nested stack of their own (lib/api-routes.ts); the API, its
 * authorizers and gateway responses, the functions, and the deployment and stage that serve
 * the methods are here. Each method is throttled by its route's kind of traffic, and each app
 * by the usage plan whose key the authorizer names (lib/usage-plans.ts); a regional web ACL
 * guards the stage (lib/web-acl.ts); a custom domain is optional.
 */
import { CfnOutput, Duration, Lazy, Names } from "aws-cdk-lib";
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  type CfnAuthorizer,
  type CfnGatewayResponse,
  Deployment,
  type DomainName,
  EndpointType,
  type GatewayResponse,
  IdentitySource,
  LogGroupLogDestination,
  type MethodDeploymentOptions,
  MethodLoggingLevel,
  RequestAuthorizer,
  RestApi,
  SecurityPolicy,
  Stage,
  TokenAuthorizer,
} from "aws-cdk-lib/aws-apigateway";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import { type IRole, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct, type IConstruct } from "constructs";
import { API_FUNCTIONS, type ApiFunctionId, apiFunctionIdOf } from "../src/functions/manifest.ts";
import { methodsOf, ROUTES, type Route } from "../src/http/routes.ts";
import {
  type ApiRoute,
  ApiRoutes,
  type AuthorizerName,
  type MethodDefinition,
} from "./api-routes.ts";
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
  /** The route table, ROUTES unless a test changes a row of it. */
  readonly routes?: readonly ApiRoute[];
}

export class AttributionApi extends Construct {
  readonly api: RestApi;
  /** The stage's access log: every request, its status and why API Gateway refused it. */
  readonly accessLogs: LogGroup;
  readonly authorizerFunction: ServiceFunction;
  /** The API-key TOKEN authorizer and the session REQUEST authorizer, both of that function. */
  readonly authorizers: Readonly<Record<AuthorizerName, TokenAuthorizer | RequestAuthorizer>>;
  /** Each API function, by its id: what there is one of per function (alarms, concurrency). */
  readonly functions: Readonly<Partial<Record<ApiFunctionId, ServiceFunction>>>;
  /** The function serving each route, by the route's id; a group's routes share theirs. */
  readonly routeFunctions: Readonly<Record<string, ServiceFunction>>;
  /** The API's resources and methods (a nested stack). */
  readonly routes: ApiRoutes;
  /** What the stage serves: a new deployment whenever what it is a snapshot of changes. */
  readonly deployment: Deployment;
  /** The apps' usage plan and its keys (a nested stack). */
  readonly usagePlan: AppUsagePlan;
  readonly webAcl: RegionalWebAcl;
  /** The custom domain, when one is set. */
  readonly domain: DomainName | undefined;

  constructor(scope: Construct, id: string, props: AttributionApiProps) {
    super(scope, id);
    const logRetention = props.logRetention ?? DEFAULT_SETTINGS.logRetention;
    const limits = props.limits ?? DEFAULT_SETTINGS;
    const routes = (props.routes ?? ROUTES).filter(
      (route) => props.functions[apiFunctionIdOf(route.id)],
    );

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
      // Its methods are made in a nested stack, where CDK's own deployment would not see them:
      // the deployment and the stage are made below.
      deploy: false,
    });
    const responses = addGatewayErrors(this.api);

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
    const authorizers = {
      key: new TokenAuthorizer(this, "KeyAuthorizer", {
        handler: this.authorizerFunction.function,
        // The spec's header: the API key itself, no scheme prefix.
        identitySource: IdentitySource.header("Authorization"),
        resultsCacheTtl: props.authorizerCacheTtl ?? DEFAULT_SETTINGS.authorizerCacheTtl,
      }),
      // The routes the dashboard calls take a key or a session cookie: the same function as a
      // REQUEST authorizer, which sees the cookie, the method, the app named and the CSRF
      // header. Uncached (an answer depends on all of those), so with no identity source either.
      session: new RequestAuthorizer(this, "SessionAuthorizer", {
        handler: this.authorizerFunction.function,
        identitySources: [],
        resultsCacheTtl: Duration.seconds(0),
      }),
    } satisfies Record<AuthorizerName, TokenAuthorizer | RequestAuthorizer>;
    // An authorizer takes its API's id from the API of the methods that name it: their nested
    // stack's import of this API, given this API's id, so each is this stack's, made once here.
    this.authorizers = authorizers;

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
    for (const route of routes) {
      const fn = functions[apiFunctionIdOf(route.id)];
      if (fn) routeFunctions[route.id] = fn;
    }
    this.routeFunctions = routeFunctions;

    this.routes = new ApiRoutes(this, "Routes", {
      api: this.api,
      routes: routes.flatMap((route) => {
        const fn = routeFunctions[route.id];
        return fn ? [{ route, handler: fn.function }] : [];
      }),
      authorizers,
    });
    // The API's list of its methods, which CDK refuses to synthesize an API without.
    const methods = this.routes.methods.map(({ method }) => method);
    this.api.methods.push(...methods);

    this.deployment = new Deployment(this.api, "Deployment", {
      api: this.api,
      description: "Attribution service API",
    });
    // Made once every method is, so once the nested stack is: it is a snapshot of the API.
    this.deployment.node.addDependency(...methods, ...responses);
    // Read as the template is written, so as to see any later change to these too.
    this.deployment.addToLogicalId(
      Lazy.any({
        produce: () =>
          deployedDefinition(
            this.routes.methods.map(({ definition }) => definition),
            authorizers,
            responses,
          ),
      }),
    );
    // The id CDK gives the stage of an API it deploys itself, so it keeps its logical id.
    const stageLimit = stageThrottle(limits);
    this.api.deploymentStage = new Stage(this.api, "DeploymentStage.prod", {
      deployment: this.deployment,
      // The default of any method without its own, which every route has.
      throttlingRateLimit: stageLimit.rateLimit,
      throttlingBurstLimit: stageLimit.burstLimit,
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
    });
    this.#allowStageOnly(Object.values(routeFunctions));

    this.usagePlan = new AppUsagePlan(this, "UsagePlan", {
      api: this.api,
      methods: this.routes.methods.filter(({ definition }) => definition.apiKeyRequired),
      limits,
    });
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
   * One permission per function for the whole API, rather than a resource for each method (a
   * route group's function has many). Its source is the deployed stage: only requests to it
   * invoke a function, and not API Gateway's console test calls (`test-invoke-stage`). Each has
   * the id of the API-wide permission CDK's LambdaIntegration made here before the methods
   * moved to their nested stack, so the logical id it had.
   */
  #allowStageOnly(functions: readonly ServiceFunction[]): void {
    const deployed = this.api.arnForExecuteApi("*", "/*", this.api.deploymentStage.stageName);
    for (const fn of new Set(functions)) {
      const id = `ApiPermission.ApiScoped.${Names.nodeUniqueId(fn.function.node)}.${Names.nodeUniqueId(this.api.node)}`;
      fn.function.addPermission(id, {
        principal: new ServicePrincipal("apigateway.amazonaws.com"),
        scope: this.api,
        sourceArn: deployed,
      });
    }
  }

  /** The API's URL, its custom domain's when set; routes hang below it (`<url>api/v1/export`). */
  get url(): string {
    return this.domain ? `https://${this.domain.domainName}/` : this.api.url;
  }
}

/**
 * What the stage's deployment is a snapshot of, hashed into its logical id. API Gateway serves a
 * change to a method, an authorizer or a gateway response only from a new deployment, and
 * CloudFormation makes one only when the deployment's logical id changes. CDK hashes each
 * method into its API's deployment as the method is made, but these are made in their nested
 * stack on an import of the API, which has no deployment: each is hashed here by its
 * definition instead, the plain data it is made from. CDK still hashes the API's own
 * properties; the authorizers and gateway responses, in this stack, by their properties.
 */
const deployedDefinition = (
  methods: readonly MethodDefinition[],
  authorizers: Readonly<Record<AuthorizerName, IConstruct>>,
  responses: readonly GatewayResponse[],
) => ({
  // By code unit, not locale: the same methods hash the same on every machine.
  methods: [...methods].sort((a, b) => {
    const [x, y] = [`${a.path} ${a.httpMethod}`, `${b.path} ${b.httpMethod}`];
    return x < y ? -1 : x > y ? 1 : 0;
  }),
  authorizers: Object.fromEntries(
    Object.entries(authorizers).map(([name, authorizer]) => {
      const cfn = authorizer.node.defaultChild as CfnAuthorizer;
      return [
        name,
        {
          name: cfn.name,
          type: cfn.type,
          authorizerUri: cfn.authorizerUri,
          identitySource: cfn.identitySource,
          resultsCacheTtl: cfn.authorizerResultTtlInSeconds,
        },
      ];
    }),
  ),
  gatewayResponses: responses.map((response) => {
    const cfn = response.node.defaultChild as CfnGatewayResponse;
    return {
      type: cfn.responseType,
      statusCode: cfn.statusCode,
      templates: cfn.responseTemplates,
      parameters: cfn.responseParameters,
    };
  }),
});

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
