/**
 * API Gateway-shaped events and contexts for calling a handler's middy chain in process, as
 * the gateway in front of it would, without a socket or a runtime.
 */
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import type { Scope } from "../domain/keys.ts";

export const CONTEXT = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: "test",
  functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:local:000000000000:function:test",
  memoryLimitInMB: "128",
  awsRequestId: "request-1",
  logGroupName: "/aws/lambda/test",
  logStreamName: "test",
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
} satisfies Context;

/** The authorizer's verdict for a key of `appId` with `scopes`, as API Gateway passes it. */
export const principal = (appId: string, scopes: readonly Scope[]) => ({
  keyId: "k1",
  appId,
  appName: `App ${appId}`,
  scopes: scopes.join(" "),
  principalId: "k1",
});

export const apiEvent = (
  overrides: {
    path?: string;
    body?: string | null;
    query?: Record<string, string>;
    params?: Record<string, string>;
    headers?: Record<string, string>;
    authorizer?: Record<string, string>;
    sourceIp?: string;
  } = {},
): APIGatewayProxyEvent => ({
  resource: overrides.path ?? "/",
  path: overrides.path ?? "/",
  httpMethod: "GET",
  headers: overrides.headers ?? {},
  multiValueHeaders: {},
  queryStringParameters: overrides.query ?? null,
  multiValueQueryStringParameters: null,
  pathParameters: overrides.params ?? null,
  stageVariables: null,
  body: overrides.body ?? null,
  isBase64Encoded: false,
  requestContext: {
    accountId: "000000000000",
    apiId: "test",
    stage: "local",
    protocol: "HTTP/1.1",
    httpMethod: "GET",
    path: overrides.path ?? "/",
    resourcePath: overrides.path ?? "/",
    resourceId: "test",
    requestId: "request-1",
    requestTimeEpoch: 0,
    authorizer: overrides.authorizer,
    identity: {
      sourceIp: overrides.sourceIp ?? "81.2.69.142",
      userAgent: null,
      accessKey: null,
      accountId: null,
      apiKey: null,
      apiKeyId: null,
      caller: null,
      clientCert: null,
      cognitoAuthenticationProvider: null,
      cognitoAuthenticationType: null,
      cognitoIdentityId: null,
      cognitoIdentityPoolId: null,
      principalOrgId: null,
      user: null,
      userArn: null,
    },
  },
});
