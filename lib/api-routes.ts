/**
 * The REST API's resources and methods (lib/api.ts), in a nested stack of their own: one
 * resource a path segment and one method a verb of a route, which in the service's stack took
 * it near CloudFormation's 500 resources. The API itself, its authorizers, gateway responses,
 * deployment and stage stay in the service's stack, as do the functions and their permission
 * to be invoked: this stack imports the API by its id and its root resource's, and CDK passes
 * it each function's ARN and each authorizer's id as a parameter (200 at most a template).
 *
 * API Gateway serves a method only once a deployment holds it, and the service's stack makes
 * that deployment: its logical id is hashed from each method's definition, the plain data
 * below that the method is built from, so that a change to any route makes a new deployment.
 */
import { type CfnElement, Duration, NestedStack, Stack } from "aws-cdk-lib";
import {
  AuthorizationType,
  AwsIntegration,
  type IAuthorizer,
  type Method,
  type MethodOptions,
  ResponseTransferMode,
  RestApi,
} from "aws-cdk-lib/aws-apigateway";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { Construct } from "constructs";
import { SESSION_ROUTE_SCOPES } from "../src/domain/sessions.ts";
import { methodsOf, type Route, type RouteId } from "../src/http/routes.ts";
import { acknowledge } from "./nag.ts";

/** A row of the API's route table (ROUTES). */
export type ApiRoute = Route & { readonly id: RouteId };

/** The API's authorizers, by what they check: a key, or a key or a dashboard session. */
export type AuthorizerName = "key" | "session";

/** API Gateway's limit for buffered integrations; streamed ones may run up to 15 minutes. */
const BUFFERED_TIMEOUT_LIMIT = Duration.seconds(29);
const STREAMED_TIMEOUT_LIMIT = Duration.minutes(15);

/**
 * One method, as plain data: everything it is built from (its function by the function's
 * logical id in the service's stack), and so what the API's deployment is hashed from.
 */
export interface MethodDefinition {
  readonly path: string;
  readonly httpMethod: string;
  readonly operationName: string;
  /** Its authorizer; null for a public route, which has none and takes no key. */
  readonly authorizer: AuthorizerName | null;
  /** The app's key, which the authorizer names: its usage plan limits it. */
  readonly apiKeyRequired: boolean;
  readonly integration: {
    readonly type: "AWS_PROXY";
    readonly function: string;
    readonly responseTransferMode: "STREAM" | "BUFFERED";
    readonly timeoutMillis: number;
  };
}

/**
 * A route's methods: its verb, and HEAD for a GET route, answered as its GET with the body left
 * off, as the embedded gateway does (link checkers and monitors ask so). Every method of a
 * keyed route is behind the API-key TOKEN authorizer, or, for the routes the dashboard calls,
 * the REQUEST authorizer that also takes a session cookie. The integration waits as long as
 * the route's own row says (a group's function may be sized for a slower route of its group),
 * within API Gateway's limit.
 */
export const methodDefinitionsOf = (route: ApiRoute, fn: string): MethodDefinition[] => {
  const timeout = Duration.seconds(route.timeoutSeconds);
  const limit = route.streaming ? STREAMED_TIMEOUT_LIMIT : BUFFERED_TIMEOUT_LIMIT;
  const authorizer: AuthorizerName | null =
    route.scope === null
      ? null
      : (SESSION_ROUTE_SCOPES as readonly string[]).includes(route.scope)
        ? "session"
        : "key";
  return methodsOf(route).map((verb) => ({
    path: route.path,
    httpMethod: verb,
    operationName: verb === route.method ? route.id : `${route.id}-${verb.toLowerCase()}`,
    authorizer,
    apiKeyRequired: authorizer !== null,
    integration: {
      type: "AWS_PROXY",
      function: fn,
      responseTransferMode: route.streaming ? "STREAM" : "BUFFERED",
      timeoutMillis: Math.min(timeout.toMilliseconds(), limit.toMilliseconds()),
    },
  }));
};

/** A function's logical id in its stack's template. */
const logicalIdOf = (fn: IFunction): string =>
  Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement);

/**
 * The Lambda proxy integration, as CDK's LambdaIntegration renders it, but making no permission:
 * the service's stack gives each function one permission for all of its methods (lib/api.ts),
 * where LambdaIntegration would add one to this stack for each function.
 */
const lambdaProxy = (fn: IFunction, definition: MethodDefinition): AwsIntegration => {
  const streamed = definition.integration.responseTransferMode === "STREAM";
  return new AwsIntegration({
    proxy: true,
    service: "lambda",
    path: streamed
      ? `2021-11-15/functions/${fn.functionArn}/response-streaming-invocations`
      : `2015-03-31/functions/${fn.functionArn}/invocations`,
    options: {
      responseTransferMode: streamed ? ResponseTransferMode.STREAM : ResponseTransferMode.BUFFERED,
      timeout: Duration.millis(definition.integration.timeoutMillis),
    },
  });
};

/** A method of a route, with its definition. */
export interface RouteMethod {
  readonly route: ApiRoute;
  readonly definition: MethodDefinition;
  readonly method: Method;
}

export interface ApiRoutesProps {
  /** The service's REST API, whose resources and methods these are. */
  readonly api: RestApi;
  /** Each route, with the function that serves it (a route group's routes share theirs). */
  readonly routes: readonly { readonly route: ApiRoute; readonly handler: IFunction }[];
  /** The authorizers, made on the API in the service's stack. */
  readonly authorizers: Readonly<Record<AuthorizerName, IAuthorizer>>;
}

export class ApiRoutes extends NestedStack {
  readonly methods: readonly RouteMethod[];

  constructor(scope: Construct, id: string, props: ApiRoutesProps) {
    super(scope, id, {
      description: "Attribution service: the REST API's resources and methods, one a route's verb",
    });
    const api = RestApi.fromRestApiAttributes(this, "RestApi", {
      restApiId: props.api.restApiId,
      rootResourceId: props.api.restApiRootResourceId,
    });
    const methods: RouteMethod[] = [];
    for (const { route, handler } of props.routes) {
      const resource = api.root.resourceForPath(route.path);
      for (const definition of methodDefinitionsOf(route, logicalIdOf(handler))) {
        const options: MethodOptions = definition.authorizer
          ? {
              authorizer: props.authorizers[definition.authorizer],
              authorizationType: AuthorizationType.CUSTOM,
              operationName: definition.operationName,
              apiKeyRequired: definition.apiKeyRequired,
            }
          : { authorizationType: AuthorizationType.NONE, operationName: definition.operationName };
        const method = resource.addMethod(
          definition.httpMethod,
          lambdaProxy(handler, definition),
          options,
        );
        methods.push({ route, definition, method });
        if (route.scope === null) {
          // A public route: no key, so no authorizer (the embedded gateway skips it too).
          const reason = `${definition.httpMethod} ${route.path} is public by design. ${route.publicReason}`;
          acknowledge(method, "AwsSolutions-APIG4", reason);
          acknowledge(method, "AwsSolutions-COG4", reason);
          continue;
        }
        acknowledge(
          method,
          "AwsSolutions-COG4",
          definition.authorizer === "session"
            ? "Callers authenticate with the spec's API keys or a dashboard session cookie, both checked by the Lambda REQUEST authorizer; Cognito checks passwords at sign-in only."
            : "Callers authenticate with the spec's API keys, checked by the Lambda TOKEN authorizer.",
        );
      }
    }
    this.methods = methods;
  }
}
