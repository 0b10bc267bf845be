import { STATUS_CODES } from "node:http";
import { Duration } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import type { CfnGatewayResponse } from "aws-cdk-lib/aws-apigateway";
import { beforeAll, describe, expect, it } from "vitest";
import { authorizerEnv, exportEnv, ingestEnv } from "../src/config/aws-env.ts";
import { SESSION_ROUTE_SCOPES } from "../src/domain/sessions.ts";
import { API_FUNCTIONS, apiFunctionIdOf, functionOf as rowOf } from "../src/functions/manifest.ts";
import { methodsOf, ROUTES } from "../src/http/routes.ts";
import { AttributionApi, type AttributionApiProps } from "./api.ts";
import type { ApiRoute } from "./api-routes.ts";
import { GATEWAY_RESPONSES } from "./gateway-responses.ts";
import { RATES_TABLE_KEY } from "./lake.ts";
import { INGEST_DATA, type ServiceStack } from "./service-stack.ts";
import { DEFAULT_SETTINGS, ROUTE_LOADS } from "./settings.ts";
import {
  actionsOf,
  asArray,
  isJson,
  nestedStackIdOf,
  propertiesOf,
  seenFrom,
  sharedServiceStack,
  statementsOfRole,
  synthServiceStack,
  testStack,
} from "./stack.test-support.ts";

let stack: ServiceStack;
let template: Template;
/** The nested stack of the API's resources and methods. */
let routes: Template;

const INGEST_ROUTES = ["installs", "events", "s2s-events"] as const;

beforeAll(() => {
  ({ stack, template } = sharedServiceStack());
  routes = Template.fromStack(stack.api.routes);
});

/** A value of the service's stack as the routes' nested stack is given it: a parameter. */
const inRoutes = (value: unknown) => seenFrom(stack.api.routes, template, value);

const functionOf = (id: string) => {
  const fn = stack.api.routeFunctions[id];
  if (!fn) throw new Error(`no function for route ${id}`);
  return fn;
};

const resourceOf = (logicalRef: unknown) => {
  const resolved = stack.resolve(logicalRef);
  const id = isJson(resolved) ? (resolved.Ref ?? asArray(resolved["Fn::GetAtt"])[0]) : undefined;
  if (typeof id !== "string") throw new Error("not a reference");
  return template.toJSON().Resources[id];
};

/** What a permission's source ARN names, the API's id and its stage as deployed. */
const API_ID = "a1b2c3d4e5";
const STAGE = "prod";
const sourceArnPattern = (arn: unknown): RegExp => {
  const refs: Record<string, string> = {
    "AWS::Partition": "aws",
    [String(resolvedRef(stack.api.api.restApiId))]: API_ID,
    [String(resolvedRef(stack.api.api.deploymentStage.stageName))]: STAGE,
  };
  const text = (part: unknown): string => {
    if (typeof part === "string") return part;
    if (isJson(part) && typeof part.Ref === "string" && part.Ref in refs)
      return refs[part.Ref] ?? "";
    const join = isJson(part) ? asArray(part["Fn::Join"]) : [];
    if (join.length === 2) return asArray(join[1]).map(text).join(String(join[0]));
    throw new Error(`unexpected in a source ARN: ${JSON.stringify(part)}`);
  };
  // A permission's source ARN is matched as IAM's ArnLike: `*` is any run of characters.
  const escaped = text(arn).replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${escaped.replaceAll("*", ".*")}$`);
};
const resolvedRef = (value: unknown) => {
  const resolved = stack.resolve(value);
  return isJson(resolved) ? resolved.Ref : undefined;
};

describe.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))("route %s", (_, route) => {
  it(
    route.scope === null
      ? "is a public method, with no authorizer"
      : "is a method behind the API-key authorizer",
    () => {
      const session = (SESSION_ROUTE_SCOPES as readonly (string | null)[]).includes(route.scope);
      const authorizer = stack.api.authorizers[session ? "session" : "key"];
      routes.hasResourceProperties(
        "AWS::ApiGateway::Method",
        route.scope === null
          ? {
              HttpMethod: route.method,
              AuthorizationType: "NONE",
              AuthorizerId: Match.absent(),
              OperationName: route.id,
            }
          : {
              HttpMethod: route.method,
              AuthorizationType: "CUSTOM",
              // The authorizer of the service's stack, by the id it passes as a parameter.
              AuthorizerId: inRoutes(authorizer.authorizerId),
              OperationName: route.id,
            },
      );
    },
  );

  const row = rowOf(apiFunctionIdOf(route.id));
  it(`runs on the ${row.id} function on Node 22, arm64, sized as its manifest row says`, () => {
    expect(resourceOf(functionOf(route.id).function.functionArn).Properties).toMatchObject({
      Runtime: "nodejs22.x",
      Architectures: ["arm64"],
      Handler: "index.handler",
      MemorySize: row.memoryMb,
      Timeout: row.timeoutSeconds,
      TracingConfig: { Mode: "Active" },
    });
    // A group's function is sized for the largest of its routes.
    expect(row.memoryMb).toBeGreaterThanOrEqual(route.memoryMb);
    expect(row.timeoutSeconds).toBeGreaterThanOrEqual(route.timeoutSeconds);
  });

  it("lets the deployed stage invoke the function, and not the console's test calls", () => {
    const fn = resourceOf(functionOf(route.id).function.functionArn);
    const logicalId = Object.entries(template.toJSON().Resources).find(([, r]) => r === fn)?.[0];
    const permissions = Object.values(template.findResources("AWS::Lambda::Permission")).filter(
      (p) =>
        propertiesOf(p).Principal === "apigateway.amazonaws.com" &&
        JSON.stringify(propertiesOf(p).FunctionName).includes(`"${logicalId}"`),
    );
    // One permission for all the function's methods (a group's routes share it).
    expect(permissions).toHaveLength(1);
    const allows = sourceArnPattern(propertiesOf(permissions[0]).SourceArn);
    const call = (stage: string, apiId = API_ID) =>
      `arn:aws:execute-api:eu-west-1:123456789012:${apiId}/${stage}/${route.method}${route.path.replace(/\{[^}]+\}/g, "x1")}`;
    expect(allows.test(call(STAGE)), call(STAGE)).toBe(true);
    // API Gateway's console invokes a method as the stage test-invoke-stage.
    expect(allows.test(call("test-invoke-stage"))).toBe(false);
    expect(allows.test(call(STAGE, "otherapi99"))).toBe(false);
  });

  it(`${route.streaming ? "streams" : "buffers"} the Lambda response through the proxy integration`, () => {
    const method = Object.values(routes.findResources("AWS::ApiGateway::Method")).find(
      (m) => propertiesOf(m).OperationName === route.id,
    );
    const integration = propertiesOf(method).Integration;
    const uri = JSON.stringify(isJson(integration) ? integration.Uri : undefined);
    expect(integration).toMatchObject({ Type: "AWS_PROXY" });
    // Its own function's, whose ARN the service's stack passes as a parameter.
    expect(uri).toContain(JSON.stringify(inRoutes(functionOf(route.id).function.functionArn)));
    if (route.streaming) {
      expect(integration).toMatchObject({
        ResponseTransferMode: "STREAM",
        TimeoutInMillis: route.timeoutSeconds * 1000,
      });
      expect(uri).toContain("lambda:path/2021-11-15/functions/");
      expect(uri).toContain("/response-streaming-invocations");
    } else {
      expect(integration).not.toMatchObject({ ResponseTransferMode: "STREAM" });
      expect(uri).not.toContain("/response-streaming-invocations");
    }
  });
});

describe("route groups", () => {
  const groups = API_FUNCTIONS.filter((row) => row.kind === "route-group");

  it.each(groups.map((row) => [row.id, row] as const))(
    "serves every route of the %s group from one function, made once",
    (_, row) => {
      if (row.kind !== "route-group") throw new Error(`${row.id} is not a route group`);
      const shared = stack.api.functions[row.id as keyof typeof stack.api.functions];
      expect(shared).toBeDefined();
      for (const route of row.routes) expect(functionOf(route.id), route.id).toBe(shared);
      const described = Object.values(template.findResources("AWS::IAM::Role")).filter(
        (role) => propertiesOf(role).Description === `Runs the ${row.id} function`,
      );
      expect(described).toHaveLength(1);
    },
  );

  it("makes one function per API function row, and no other", () => {
    expect(Object.keys(stack.api.functions).sort()).toEqual(
      API_FUNCTIONS.map((row) => row.id).sort(),
    );
    expect(new Set(Object.values(stack.api.routeFunctions)).size).toBe(API_FUNCTIONS.length);
  });
});

describe("environment contract", () => {
  const keysOf = (fn: ReturnType<typeof functionOf>) =>
    Object.keys(resourceOf(fn.function.functionArn).Properties.Environment.Variables).sort();

  it("gives the export function exactly the variables of exportEnv", () => {
    expect(keysOf(functionOf("export"))).toEqual(Object.keys(exportEnv.shape).sort());
  });

  it("gives the public OpenAPI function no variable and no grant", () => {
    const fn = functionOf("openapi");
    expect(resourceOf(fn.function.functionArn).Properties.Environment).toBeUndefined();
    const actions = statementsOfRole(template, fn.role).flatMap(actionsOf);
    // Only what every function has: its own log group and tracing.
    expect([...new Set(actions.map((a) => a.split(":")[0]))].sort()).toEqual(["logs", "xray"]);
  });

  it("gives the authorizer exactly the variables of authorizerEnv", () => {
    expect(keysOf(stack.api.authorizerFunction)).toEqual(Object.keys(authorizerEnv.shape).sort());
  });

  it.each(INGEST_ROUTES)("gives %s exactly the variables of ingestEnv", (id) => {
    expect(keysOf(functionOf(id))).toEqual(Object.keys(ingestEnv.shape).sort());
  });

  it.each(INGEST_ROUTES)("points %s at its stores, stream, key and bundled data files", (id) => {
    expect(
      resourceOf(functionOf(id).function.functionArn).Properties.Environment.Variables,
    ).toEqual({
      APPS_TABLE: stack.resolve(stack.tables.table.apps.tableName),
      INSTALLS_TABLE: stack.resolve(stack.tables.table.installs.tableName),
      CUSTOMER_USERS_TABLE: stack.resolve(stack.tables.table.customerUsers.tableName),
      // Which installs send from each address, recorded beside the touches.
      TOUCHES_TABLE: stack.resolve(stack.tables.table.touches.tableName),
      // An accepted event's postbacks: the app's configurations, one outbox row a send, queued.
      POSTBACK_CONFIGS_TABLE: stack.resolve(stack.tables.table.postbackConfigs.tableName),
      OUTBOX_TABLE: stack.resolve(stack.tables.table.outbox.tableName),
      POSTBACK_QUEUE_URL: stack.resolve(stack.workers.queueOf("postback").queueUrl),
      EVENTS_STREAM: stack.resolve(stack.ingest.streams.events.ref),
      SEALING_KEY_ARN: stack.resolve(stack.sealingKey.keyArn),
      FX_RATES_FILE: "/var/task/ecb-eurofxref-hist.csv",
      FX_RATES_BUCKET: stack.resolve(stack.lake.bucket.bucketName),
      FX_RATES_KEY: RATES_TABLE_KEY,
      GEOIP_DB_FILE: "/var/task/geo-whois-asn-country.mmdb",
      DELETIONS_TABLE: stack.resolve(stack.tables.table.deletions.tableName),
      TRUST_VIEWER_COUNTRY: "false",
      ATTRIBUTIONS_TABLE: stack.resolve(stack.tables.table.attributions.tableName),
      ATTRIBUTION_QUEUE_URL: stack.resolve(stack.workers.queueOf("attribute").queueUrl),
    });
  });

  it("ships the data files from the project: the ECB history and the package's database", () => {
    expect(INGEST_DATA).toEqual({
      fxRates: "data/ecb-eurofxref-hist.csv",
      geoip: expect.stringMatching(
        /^node_modules\/@ip-location-db\/geo-whois-asn-country-mmdb\/geo-whois-asn-country\.mmdb$/,
      ),
    });
  });

  it("names resources by reference, not by literal", () => {
    const variables = resourceOf(functionOf("export").function.functionArn).Properties.Environment
      .Variables;
    expect(variables).toMatchObject({
      SNAPSHOTS_TABLE: stack.resolve(stack.tables.table.snapshots.tableName),
      DELETIONS_TABLE: stack.resolve(stack.tables.table.deletions.tableName),
      ATHENA_WORKGROUP: stack.queries.workGroupName,
      GLUE_DATABASE: stack.lake.catalog.databaseName,
      RESULTS_BUCKET: stack.resolve(stack.lake.resultsBucket.bucketName),
      SNAPSHOT_TTL_SECONDS: "7200",
    });
  });
});

describe("authorizer", () => {
  it("is a TOKEN authorizer on the Authorization header, cached for 5 minutes", () => {
    template.hasResourceProperties("AWS::ApiGateway::Authorizer", {
      Type: "TOKEN",
      IdentitySource: "method.request.header.Authorization",
      AuthorizerResultTtlInSeconds: 300,
    });
  });
});

describe("gateway responses", () => {
  const responses = () =>
    Object.values(template.findResources("AWS::ApiGateway::GatewayResponse")).map(propertiesOf);

  const bodyOf = (response: Record<string, unknown>) => {
    const templates = response.ResponseTemplates;
    const json = isJson(templates) ? templates["application/json"] : undefined;
    if (typeof json !== "string") throw new Error("no JSON template");
    // API Gateway substitutes a quoted JSON string for $context.error.messageString.
    return JSON.parse(json.replaceAll("$context.error.messageString", '"a message"'));
  };

  it("answers a missing, invalid or unscoped key with 401 Unauthorized", () => {
    for (const type of ["UNAUTHORIZED", "ACCESS_DENIED"]) {
      const response = responses().find((r) => r.ResponseType === type);
      expect(response?.StatusCode).toBe("401");
      expect(bodyOf(response ?? {})).toEqual({ error: "Unauthorized", detail: expect.any(String) });
    }
  });

  it("uses the {error, detail} body with the status name for every type", () => {
    expect(responses()).toHaveLength(GATEWAY_RESPONSES.length);
    for (const response of responses()) {
      const body = bodyOf(response);
      expect(Object.keys(body).sort()).toEqual(["detail", "error"]);
      expect(body.error).toBe(STATUS_CODES[Number(response.StatusCode)]);
    }
  });

  it("answers a body over API Gateway's 10 MB limit with 413 Payload Too Large", () => {
    const response = responses().find((r) => r.ResponseType === "REQUEST_TOO_LARGE");
    expect(response?.StatusCode).toBe("413");
    expect(bodyOf(response ?? {})).toEqual({ error: "Payload Too Large", detail: "a message" });
  });

  it("covers DEFAULT_4XX and DEFAULT_5XX; no 5XX repeats API Gateway's message", () => {
    const types = responses().map((r) => r.ResponseType);
    expect(types).toEqual(expect.arrayContaining(["DEFAULT_4XX", "DEFAULT_5XX"]));
    for (const response of responses().filter((r) => String(r.StatusCode).startsWith("5"))) {
      expect(JSON.stringify(response.ResponseTemplates)).not.toContain("$context");
      expect(bodyOf(response)).toEqual({
        error: "Internal Server Error",
        detail: expect.any(String),
      });
    }
  });
});

describe("the API's resources and methods, a nested stack of their own", () => {
  /** Each path a route's resource path is under, itself included: one resource each. */
  const resourcePaths = new Set(
    ROUTES.flatMap((route) =>
      route.path
        .split("/")
        .slice(1)
        .map((_, i, parts) => `/${parts.slice(0, i + 1).join("/")}`),
    ),
  );

  it("holds a resource a path and a method a route's verb, and nothing else; the service's stack none", () => {
    const types = Object.values(routes.toJSON().Resources).map((r) => (r as { Type: string }).Type);
    expect([...new Set(types)].sort()).toEqual([
      "AWS::ApiGateway::Method",
      "AWS::ApiGateway::Resource",
    ]);
    routes.resourceCountIs("AWS::ApiGateway::Method", ROUTES.flatMap(methodsOf).length);
    routes.resourceCountIs("AWS::ApiGateway::Resource", resourcePaths.size);
    template.resourceCountIs("AWS::ApiGateway::Method", 0);
    template.resourceCountIs("AWS::ApiGateway::Resource", 0);
  });

  it("adds them to the service's API, by the ids of the API and its root it is passed", () => {
    for (const kind of ["AWS::ApiGateway::Method", "AWS::ApiGateway::Resource"]) {
      for (const resource of Object.values(routes.findResources(kind))) {
        expect(propertiesOf(resource).RestApiId, kind).toEqual(inRoutes(stack.api.api.restApiId));
      }
    }
    const root = inRoutes(stack.api.api.restApiRootResourceId);
    const topLevel = Object.values(routes.findResources("AWS::ApiGateway::Resource")).filter(
      (resource) => JSON.stringify(propertiesOf(resource).ParentId) === JSON.stringify(root),
    );
    expect(topLevel.map((resource) => propertiesOf(resource).PathPart).sort()).toEqual([
      "api",
      "v1",
    ]);
  });

  it("leaves the authorizers, one of each, to the service's stack, which passes their ids", () => {
    template.resourceCountIs("AWS::ApiGateway::Authorizer", 2);
    // Of the service's API, by its own reference: the nested stack takes, and gives back, none.
    template.allResourcesProperties("AWS::ApiGateway::Authorizer", {
      RestApiId: stack.resolve(stack.api.api.restApiId),
    });
    expect(routes.toJSON().Outputs ?? {}).toEqual({});
    const passed = propertiesOf(template.toJSON().Resources[nestedStackIdOf(stack.api.routes)])
      .Parameters as Record<string, unknown>;
    for (const authorizer of Object.values(stack.api.authorizers)) {
      const { Ref: parameter } = inRoutes(authorizer.authorizerId) as { Ref: string };
      expect(passed[parameter]).toEqual(stack.resolve(authorizer.authorizerId));
    }
  });
});

describe("the stage's deployment", () => {
  const deploymentOf = (t: Template) => {
    const deployments = Object.entries(t.findResources("AWS::ApiGateway::Deployment"));
    expect(deployments).toHaveLength(1);
    return deployments[0] as [string, { DependsOn?: unknown }];
  };

  it("is made once the nested stack's methods and every gateway response are, and the stage serves it", () => {
    const [id, deployment] = deploymentOf(template);
    const dependsOn = asArray(deployment.DependsOn);
    expect(dependsOn).toContain(nestedStackIdOf(stack.api.routes));
    const responses = Object.keys(template.findResources("AWS::ApiGateway::GatewayResponse"));
    expect(responses).toHaveLength(GATEWAY_RESPONSES.length);
    expect(dependsOn).toEqual(expect.arrayContaining(responses));
    const [stage] = Object.values(template.findResources("AWS::ApiGateway::Stage"));
    expect(propertiesOf(stage).DeploymentId).toEqual({ Ref: id });
  });

  it("is hashed from the definitions of the methods the nested stack holds", () => {
    // Each method of the nested template, read back into the definition it was made from.
    const resources = routes.toJSON().Resources as Record<string, unknown>;
    const root = JSON.stringify(inRoutes(stack.api.api.restApiRootResourceId));
    const pathOf = (ref: unknown): string => {
      if (JSON.stringify(ref) === root) return "";
      const resource = propertiesOf(resources[String(isJson(ref) && ref.Ref)]);
      return `${pathOf(resource.ParentId)}/${resource.PathPart}`;
    };
    const passed = propertiesOf(template.toJSON().Resources[nestedStackIdOf(stack.api.routes)])
      .Parameters as Record<string, unknown>;
    const functionsIn = (uri: unknown) =>
      Object.entries(passed)
        .filter(([name]) => JSON.stringify(uri).includes(JSON.stringify({ Ref: name })))
        .map(([, value]) => (isJson(value) ? asArray(value["Fn::GetAtt"])[0] : value));
    const authorizerNamed = (id: unknown) =>
      Object.entries(stack.api.authorizers).find(
        ([, authorizer]) =>
          JSON.stringify(inRoutes(authorizer.authorizerId)) === JSON.stringify(id),
      )?.[0];
    const readBack = Object.values(routes.findResources("AWS::ApiGateway::Method")).map((m) => {
      const method = propertiesOf(m);
      const integration = isJson(method.Integration) ? method.Integration : {};
      const [fn, ...others] = functionsIn(integration.Uri);
      expect(others).toEqual([]);
      return {
        path: pathOf(method.ResourceId),
        httpMethod: method.HttpMethod,
        operationName: method.OperationName,
        authorizer: method.AuthorizerId === undefined ? null : authorizerNamed(method.AuthorizerId),
        apiKeyRequired: method.ApiKeyRequired === true,
        integration: {
          type: integration.Type,
          function: fn,
          responseTransferMode: integration.ResponseTransferMode,
          timeoutMillis: integration.TimeoutInMillis,
        },
      };
    });
    const byOperation = (a: { operationName: unknown }, b: { operationName: unknown }) =>
      String(a.operationName).localeCompare(String(b.operationName));
    expect(readBack.sort(byOperation)).toEqual(
      stack.api.routes.methods.map(({ definition }) => definition).sort(byOperation),
    );
  });

  describe("its logical id, for which CloudFormation makes a new deployment", () => {
    const binding = { environment: {}, grant: () => {} };
    const deploymentIdOf = (
      props: Partial<AttributionApiProps> = {},
      change: (api: AttributionApi) => void = () => {},
    ) => {
      const testing = testStack();
      const api = new AttributionApi(testing, "Api", {
        functions: Object.fromEntries(
          API_FUNCTIONS.map((row) => [row.id, binding]),
        ) as unknown as AttributionApiProps["functions"],
        authorizer: binding,
        ...props,
      });
      change(api);
      return deploymentOf(Template.fromStack(testing))[0];
    };
    const withRoute = (id: string, change: Partial<ApiRoute>): ApiRoute[] =>
      ROUTES.map((route) => (route.id === id ? ({ ...route, ...change } as ApiRoute) : route));

    let unchanged: string;
    beforeAll(() => {
      unchanged = deploymentIdOf();
    });

    it("is the same for the same API", () => {
      expect(deploymentIdOf()).toBe(unchanged);
      expect(deploymentIdOf({ routes: [...ROUTES] })).toBe(unchanged);
    });

    it.each([
      ["timeout", withRoute("config", { timeoutSeconds: 5 })],
      ["path", withRoute("config", { path: "/v1/configuration" })],
      ["verb", withRoute("request-deletion", { method: "PUT" })],
      ["authorizer", withRoute("deletion-status", { scope: "reports" })],
      ["key", withRoute("openapi", { scope: "config", publicReason: undefined })],
    ])("changes with a route's %s", (_, changed) => {
      expect(deploymentIdOf({ routes: changed })).not.toBe(unchanged);
    });

    it("stays with a route's scope under the same authorizer, whose function checks it", () => {
      expect(deploymentIdOf({ routes: withRoute("deletion-status", { scope: "s2s" }) })).toBe(
        unchanged,
      );
    });

    it("changes without a route", () => {
      expect(deploymentIdOf({ routes: ROUTES.filter((route) => route.id !== "config") })).not.toBe(
        unchanged,
      );
    });

    it("changes with the key authorizer's cache", () => {
      expect(deploymentIdOf({ authorizerCacheTtl: Duration.minutes(1) })).not.toBe(unchanged);
    });

    it("changes with a gateway response", () => {
      const changed = deploymentIdOf({}, (api) => {
        const response = api.api.node.findChild("UNAUTHORIZEDResponse").node.defaultChild;
        (response as CfnGatewayResponse).statusCode = "403";
      });
      expect(changed).not.toBe(unchanged);
    });

    it("stays with the stage's throttles, which a stage takes without a new deployment", () => {
      const limits = { ...DEFAULT_SETTINGS, apiPeak: { ...DEFAULT_SETTINGS.apiPeak, sdk: 2_000 } };
      expect(deploymentIdOf({ limits })).toBe(unchanged);
    });
  });
});

describe("stage", () => {
  it("logs access as JSON, traces, and logs errors without request data", () => {
    template.hasResourceProperties("AWS::ApiGateway::Stage", {
      TracingEnabled: true,
      AccessLogSetting: {
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp("\\$context\\.requestId"),
      },
    });
    // Every method's own settings (its throttle) repeat the stage's logging, which they replace.
    const [stage] = Object.values(template.findResources("AWS::ApiGateway::Stage"));
    const settings = propertiesOf(stage).MethodSettings as Record<string, unknown>[];
    expect(settings).toHaveLength(stack.api.api.methods.length + 1);
    for (const setting of settings) {
      expect(setting).toMatchObject({
        LoggingLevel: "ERROR",
        DataTraceEnabled: false,
        MetricsEnabled: true,
      });
    }
  });

  it("is a regional endpoint (streams may idle 5 minutes there)", () => {
    template.hasResourceProperties("AWS::ApiGateway::RestApi", {
      EndpointConfiguration: { Types: ["REGIONAL"] },
    });
  });
});

describe("least privilege", () => {
  const servicesOf = (statements: Record<string, unknown>[]) =>
    new Set(statements.flatMap(actionsOf).map((a) => a.split(":")[0]));

  it("lets the authorizer read apps, keys, users and sessions, and touch no lake, query or stream", () => {
    const statements = statementsOfRole(template, stack.api.authorizerFunction.role);
    expect([...servicesOf(statements)].sort()).toEqual(["dynamodb", "logs", "xray"]);
    const dynamo = statements.filter((s) => actionsOf(s).some((a) => a.startsWith("dynamodb:")));
    expect([...new Set(dynamo.flatMap(actionsOf))].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:GetItem",
    ]);
    expect(dynamo.flatMap((s) => asArray(s.Resource))).toEqual(
      expect.arrayContaining([
        stack.resolve(stack.tables.table.apps.tableArn),
        stack.resolve(stack.tables.table.keys.tableArn),
        stack.resolve(stack.tables.table.users.tableArn),
        stack.resolve(stack.tables.table.sessions.tableArn),
      ]),
    );
    expect(dynamo.flatMap((s) => asArray(s.Resource))).toHaveLength(4);
  });

  it("scopes the export's Athena actions to its workgroup", () => {
    const statements = statementsOfRole(template, functionOf("export").role);
    const athena = statements.filter((s) => actionsOf(s).some((a) => a.startsWith("athena:")));
    expect(athena).toHaveLength(1);
    expect(athena[0]?.Resource).toEqual(stack.resolve(stack.queries.workGroupArn));
    expect(actionsOf(athena[0] ?? {}).sort()).toEqual([
      "athena:GetQueryExecution",
      "athena:GetQueryResults",
      "athena:GetQueryRuntimeStatistics",
      "athena:StartQueryExecution",
      "athena:StopQueryExecution",
    ]);
  });

  it("lets the export read the lake but write only the results bucket", () => {
    const statements = statementsOfRole(template, functionOf("export").role);
    const lakeArn = JSON.stringify(stack.resolve(stack.lake.bucket.bucketArn));
    const onLake = statements.filter((s) => JSON.stringify(s.Resource).includes(lakeArn));
    expect(onLake.flatMap(actionsOf).sort()).toEqual([
      "s3:GetBucketLocation",
      "s3:GetObject",
      "s3:ListBucket",
    ]);
    const dynamo = statements.filter((s) => actionsOf(s).some((a) => a.startsWith("dynamodb:")));
    expect(dynamo.map((s) => s.Resource)).toEqual([
      stack.resolve(stack.tables.table.snapshots.tableArn),
      // Only the items keyed app#… (each app's tombstones), by a condition.
      stack.resolve(stack.tables.table.deletions.tableArn),
      stack.resolve(`${stack.tables.table.deletions.tableArn}/index/byApp`),
    ]);
    expect(dynamo[1]?.Condition).toEqual({
      "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["app#*"] },
    });
  });

  it("lets the export write the lists of installs it leaves out where Athena reads them", () => {
    const statements = statementsOfRole(template, functionOf("export").role);
    const resultsArn = stack.resolve(stack.lake.resultsBucket.bucketArn);
    const onResults = (action: string) =>
      statements
        .filter((s) => actionsOf(s).includes(action))
        .map((s) => JSON.stringify(s.Resource));
    // Objects under exclusions/ (by a wildcard over the bucket), and listing the bucket.
    const objects = JSON.stringify({ "Fn::Join": ["", [resultsArn, "/*"]] });
    for (const action of ["s3:PutObject", "s3:GetObject"]) {
      expect(onResults(action).some((r) => r.includes(objects))).toBe(true);
    }
    expect(onResults("s3:ListBucket").some((r) => r.includes(JSON.stringify(resultsArn)))).toBe(
      true,
    );
  });

  it("lets the export read the catalog entries of its query: the lake tables and the exclusion lists", () => {
    const statements = statementsOfRole(template, functionOf("export").role);
    const glue = statements.filter((s) => actionsOf(s).some((a) => a.startsWith("glue:")));
    expect(glue.flatMap(actionsOf).sort()).toEqual([
      "glue:GetDatabase",
      "glue:GetTable",
      "glue:GetTables",
    ]);
    const tables = JSON.stringify(glue.map((s) => s.Resource));
    for (const table of ["events", "attributions", "export_exclusions"]) {
      expect(tables).toContain(`:table/${stack.lake.catalog.databaseName}/${table}`);
    }
  });

  const allStatements = (id: string) => statementsOfRole(template, functionOf(id).role);
  const onService = (statements: Record<string, unknown>[], service: string) =>
    statements.filter((s) => actionsOf(s).some((a) => a.startsWith(`${service}:`)));

  it.each(INGEST_ROUTES)("lets %s use DynamoDB, and touch no lake, catalog or query", (id) => {
    const services = servicesOf(allStatements(id));
    for (const service of ["athena", "glue", "sts"]) expect(services.has(service)).toBe(false);
    // In S3, the rate table alone: read it, and list its key.
    const bucket = stack.resolve(stack.lake.bucket.bucketArn);
    expect(onService(allStatements(id), "s3")).toEqual([
      {
        Effect: "Allow",
        Action: "s3:ListBucket",
        Resource: bucket,
        Condition: { StringEquals: { "s3:prefix": RATES_TABLE_KEY } },
      },
      {
        Effect: "Allow",
        Action: "s3:GetObject",
        Resource: { "Fn::Join": ["", [bucket, `/${RATES_TABLE_KEY}`]] },
      },
    ]);
    const dynamo = onService(allStatements(id), "dynamodb");
    expect(dynamo.flatMap(actionsOf)).not.toContain("dynamodb:Scan");
    // The three queries: a customer user's installs, on the by-user index only, an install's
    // deletion requests, on the by-install index only, and an app's postback configurations,
    // on the by-app index only.
    const queries = dynamo.filter((s) => actionsOf(s).includes("dynamodb:Query"));
    const indexOf = (table: "deletions" | "customerUsers" | "postbackConfigs", name: string) => ({
      "Fn::Join": ["", [stack.resolve(stack.tables.table[table].tableArn), `/index/${name}`]],
    });
    expect(queries.flatMap((s) => asArray(s.Resource))).toEqual([
      indexOf("customerUsers", "byUser"),
      indexOf("deletions", "byInstall"),
      indexOf("postbackConfigs", "byApp"),
    ]);
    expect(JSON.stringify(dynamo)).not.toContain(
      JSON.stringify(stack.resolve(stack.tables.table.keys.tableArn)),
    );
  });

  it.each(["events", "s2s-events"])("lets %s put records on the events stream only", (id) => {
    expect(onService(allStatements(id), "firehose")).toEqual([
      {
        Effect: "Allow",
        Action: ["firehose:PutRecord", "firehose:PutRecordBatch"],
        Resource: stack.resolve(stack.ingest.streams.events.attrArn),
      },
    ]);
  });

  it.each(["events", "s2s-events"])("lets %s decrypt sealing keys only", (id) => {
    expect(onService(allStatements(id), "kms")).toEqual([
      {
        Effect: "Allow",
        Action: "kms:Decrypt",
        Resource: stack.resolve(stack.sealingKey.keyArn),
        Condition: {
          StringEquals: { "kms:EncryptionContext:purpose": "sealed-value-private-key" },
        },
      },
    ]);
  });

  it("lets installs neither put records nor decrypt: it stores installs and queues their attribution and postbacks", () => {
    expect([...servicesOf(allStatements("installs"))].sort()).toEqual([
      "dynamodb",
      "logs",
      "s3",
      "sqs",
      "xray",
    ]);
    const sqs = allStatements("installs").filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith("sqs:")),
    );
    expect(sqs.map((statement) => statement.Resource)).toEqual([
      stack.resolve(stack.workers.queueOf("attribute").queueArn),
      stack.resolve(stack.workers.queueOf("postback").queueArn),
    ]);
  });

  it("lets the SKAdNetwork routes query an app's postbacks and those of no app its App Store id names, and the admins' count those of no app only", () => {
    const queried = (id: string) =>
      onService(allStatements(id), "dynamodb")
        .filter((statement) => actionsOf(statement).includes("dynamodb:Query"))
        .flatMap((statement) => asArray(statement.Resource));
    const index = (name: string) => ({
      "Fn::Join": [
        "",
        [stack.resolve(stack.tables.table.applePostbacks.tableArn), `/index/${name}`],
      ],
    });
    // An app's report and listing read what is stored under it (by-app) and the postbacks of
    // no app Apple's production key verified for its App Store id (the sparse unclaimed index).
    for (const id of ["report-skadnetwork", "list-skadnetwork-postbacks"]) {
      expect(queried(id), id).toEqual([index("byApp"), index("unclaimed")]);
    }
    // The postbacks of no app, counted by App Store id: the by-app index's `-` alone.
    expect(queried("unknown-skadnetwork-postbacks")).toEqual([index("byApp")]);
  });

  it("lets no other function use the stream's producer grant or the sealing key", () => {
    for (const id of ["config", "export"]) {
      const services = servicesOf(allStatements(id));
      expect(services.has("firehose") || services.has("kms"), id).toBe(false);
    }
    const authorizer = servicesOf(statementsOfRole(template, stack.api.authorizerFunction.role));
    expect(authorizer.has("kms")).toBe(false);
  });

  it("attaches no AWS managed policy to a function role", () => {
    for (const fn of [stack.api.authorizerFunction, ...ROUTES.map((r) => functionOf(r.id))]) {
      expect(resourceOf(fn.role.roleArn).Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it("grants Scan to no one but the .well-known functions, the tap and the dashboard's app routes (an admin lists every app), on apps only, and to the people routes on users only", () => {
    const people = new Set(
      ROUTES.filter((route) => route.scope === "users").map((route) =>
        JSON.stringify(stack.resolve(functionOf(route.id).role.roleName)),
      ),
    );
    const wellKnown = new Set(
      [
        // Apple's postbacks name their app by its App Store id, found among every app; a tap
        // on a host tells whose link host it is from every app's settings.
        ...(["apple-app-site-association", "assetlinks", "apple-postback", "click"] as const).map(
          (id) => stack.linkHost.routeFunctions[id].role,
        ),
        ...ROUTES.filter((route) => route.scope === "apps").map(
          (route) => functionOf(route.id).role,
        ),
      ].map((role) => JSON.stringify(stack.resolve(role.roleName))),
    );
    for (const policy of Object.values(template.findResources("AWS::IAM::Policy"))) {
      const document = propertiesOf(policy).PolicyDocument;
      const statements = isJson(document) ? asArray(document.Statement).filter(isJson) : [];
      const scans = statements.filter((statement) =>
        actionsOf(statement).includes("dynamodb:Scan"),
      );
      if (scans.length === 0) continue;
      const roles = asArray(propertiesOf(policy).Roles).map((role) => JSON.stringify(role));
      const ofPeople = roles.every((role) => people.has(role));
      expect(ofPeople || roles.every((role) => wellKnown.has(role))).toBe(true);
      for (const scan of scans) {
        expect(actionsOf(scan)).toEqual(["dynamodb:Scan"]);
        expect(scan.Resource).toEqual(
          stack.resolve((ofPeople ? stack.tables.table.users : stack.tables.table.apps).tableArn),
        );
      }
    }
  });

  it("grants no wildcard action anywhere but to CDK's deploy-time copy of the dashboard's files", () => {
    // That function runs only while the stack deploys; CDK writes its policy.
    const deployment = JSON.stringify(stack.resolve(stack.dashboard.deploymentRole.roleName));
    const statements = Object.values(template.findResources("AWS::IAM::Policy"))
      .filter((p) => !asArray(propertiesOf(p).Roles).some((r) => JSON.stringify(r) === deployment))
      .flatMap((p) => {
        const document = propertiesOf(p).PolicyDocument;
        return isJson(document) ? asArray(document.Statement).filter(isJson) : [];
      });
    expect(statements.flatMap(actionsOf).filter((a) => a.includes("*"))).toEqual([]);
  });
});

describe("limits per route and per app", () => {
  /** CloudFormation's resource path of a route: each `/` as `~1`. */
  const resourcePath = (path: string) => `/${path.replaceAll("/", "~1")}`;
  const methodSettings = (t: Template) => {
    const [stage] = Object.values(t.findResources("AWS::ApiGateway::Stage"));
    return propertiesOf(stage).MethodSettings as Record<string, unknown>[];
  };

  it("throttles each route's method on the stage by its kind of traffic's peak", () => {
    const settings = methodSettings(template);
    for (const route of ROUTES) {
      const peak = DEFAULT_SETTINGS.apiPeak[ROUTE_LOADS[route.id]];
      expect(settings, route.id).toContainEqual(
        expect.objectContaining({
          ResourcePath: resourcePath(route.path),
          HttpMethod: route.method,
          ThrottlingRateLimit: peak,
          ThrottlingBurstLimit: peak * DEFAULT_SETTINGS.burstSeconds,
        }),
      );
    }
    // Ingestion and sign-in never share a limit: a flood of one leaves the other its own.
    const rateOf = (id: string) =>
      settings.find(
        (s) => s.ResourcePath === resourcePath(ROUTES.find((r) => r.id === id)?.path ?? ""),
      )?.ThrottlingRateLimit;
    expect(rateOf("events")).toBeGreaterThan(rateOf("export") as number);
  });

  it("sizes every limit from the stated peak: a higher peak raises the route's own", () => {
    const { template: raised } = synthServiceStack({
      settings: { apiPeak: { ...DEFAULT_SETTINGS.apiPeak, sdk: 2_000 } },
    });
    expect(methodSettings(raised)).toContainEqual(
      expect.objectContaining({
        ResourcePath: resourcePath("/v1/events"),
        HttpMethod: "POST",
        ThrottlingRateLimit: 2_000,
        ThrottlingBurstLimit: 4_000,
      }),
    );
  });

  it("takes each request's usage-plan key from the authorizer, and requires it on every keyed method", () => {
    template.hasResourceProperties("AWS::ApiGateway::RestApi", { ApiKeySourceType: "AUTHORIZER" });
    for (const route of ROUTES) {
      routes.hasResourceProperties("AWS::ApiGateway::Method", {
        OperationName: route.id,
        ApiKeyRequired: route.scope === null ? Match.absent() : true,
      });
    }
  });
});

describe("the stage's web ACL", () => {
  it("is a regional web ACL associated with the API's stage", () => {
    const association = Object.values(template.findResources("AWS::WAFv2::WebACLAssociation"));
    expect(association).toHaveLength(1);
    expect(propertiesOf(association[0]).ResourceArn).toEqual(
      stack.resolve(stack.api.api.deploymentStage.stageArn),
    );
    expect(propertiesOf(association[0]).WebACLArn).toEqual(
      stack.resolve(stack.api.webAcl.acl.attrArn),
    );
    template.hasResourceProperties("AWS::WAFv2::WebACL", {
      Scope: "REGIONAL",
      Rules: Match.arrayWith([
        Match.objectLike({
          Statement: {
            RateBasedStatement: Match.objectLike({
              AggregateKeyType: "IP",
              Limit: DEFAULT_SETTINGS.addressRateLimit,
            }),
          },
        }),
      ]),
    });
  });
});

describe("the API's custom domain", () => {
  const certificateArn = "arn:aws:acm:eu-west-1:123456789012:certificate/api";
  const custom = () =>
    synthServiceStack({ settings: { apiDomain: { name: "api.example.com", certificateArn } } });

  it("has none unless set: the API's own URL is the base URL", () => {
    template.resourceCountIs("AWS::ApiGateway::DomainName", 0);
    expect(template.toJSON().Outputs.ApiTarget).toBeUndefined();
    expect(template.toJSON().Outputs.ApiUrl.Value).toEqual(stack.resolve(stack.api.api.url));
  });

  it("answers on the domain with its regional certificate, TLS 1.2, mapped to the stage", () => {
    const { stack: withDomain, template: t } = custom();
    t.hasResourceProperties("AWS::ApiGateway::DomainName", {
      DomainName: "api.example.com",
      RegionalCertificateArn: certificateArn,
      EndpointConfiguration: { Types: ["REGIONAL"] },
      SecurityPolicy: "TLS_1_2",
    });
    t.hasResourceProperties("AWS::ApiGateway::BasePathMapping", {
      RestApiId: withDomain.resolve(withDomain.api.api.restApiId),
      Stage: withDomain.resolve(withDomain.api.api.deploymentStage.stageName),
    });
    const outputs = t.toJSON().Outputs;
    // Where the domain's DNS points, and the base URL the SDKs and the CLI are given.
    expect(outputs.ApiTarget.Value).toEqual({
      "Fn::GetAtt": [
        Object.keys(t.findResources("AWS::ApiGateway::DomainName"))[0],
        "RegionalDomainName",
      ],
    });
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain("https://");
    expect(JSON.stringify(withDomain.resolve(withDomain.api.url))).toContain("https://");
  });
});
