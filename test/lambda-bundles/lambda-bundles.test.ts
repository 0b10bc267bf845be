/**
 * The Lambda bundles as CDK ships them, exercised here: each function of the manifest
 * (src/functions/manifest.ts) built once with the stack's esbuild options (bench/lambda-bundles.ts),
 * imported in this process with the environment the synthesized stack gives it, and invoked
 * with the events API Gateway (a REST API with a TOKEN authorizer, and the link host's HTTP
 * API, both payload 1.0) and SQS would send it. Their AWS SDK clients reach local servers
 * through the standard AWS_ENDPOINT_URL_<SERVICE> variables: DynamoDB is a moto server of its
 * own, answering one request at a time, with the stack's tables and indexes under the
 * template's names; SQS, Firehose, S3 and KMS are another moto server
 * (test/local-aws/moto.ts). Each route's answer is held to its contract. A route of a route
 * group is invoked through its group's one bundle, as API Gateway invokes it.
 *
 * Not invoked, for want of a faithful local server: the export and the reports (Athena runs
 * their queries) and the rates job (it fetches the ECB's feed); `NOT_HERE` below, and
 * docs/testing.md. Every bundle is still imported with its environment.
 */

import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import {
  AdminDisableUserCommand,
  CognitoIdentityProviderClient,
} from "@aws-sdk/client-cognito-identity-provider";
import {
  DeleteTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ScanCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { KMSClient } from "@aws-sdk/client-kms";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  Context,
  SQSBatchResponse,
  SQSEvent,
} from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as z from "zod";
import { bundleFunction } from "../../bench/lambda-bundles.ts";
import { PROJECT_ROOT } from "../../lib/service-function.ts";
import { TEST_ENV } from "../../lib/stack.test-support.ts";
import { MARSHALL_OPTIONS } from "../../src/adapters/dynamodb/marshall-options.ts";
import {
  createDeliveryLog,
  createPostbackConfigStore,
} from "../../src/adapters/dynamodb/postbacks.ts";
import { createKmsKeyWrapper } from "../../src/adapters/kms/kms-key-wrapper.ts";
import {
  envSchemaOf,
  queueUrlName,
  streamVariable,
  tableVariable,
} from "../../src/functions/env.ts";
import {
  apiFunctionIdOf,
  FUNCTIONS,
  type FunctionId,
  type FunctionRow,
} from "../../src/functions/manifest.ts";
import { apiEvent } from "../../src/http/api-event.test-support.ts";
import { CONTRACTS, JSON_MEDIA_TYPE } from "../../src/http/contracts/index.ts";
import type { HttpResponse } from "../../src/http/middleware.ts";
import { isAllowed, type PolicyDocument } from "../../src/http/policy.ts";
import { type LinkHostRouteId, ROUTES, type RouteId, routeOf } from "../../src/http/routes.ts";
import { apiIdOf, usageKeyValue, usageSlotOf } from "../../src/http/usage-keys.ts";
import { AWS_JOBS } from "../../src/jobs/jobs.ts";
import { parseWebhookConfig } from "../../src/postbacks/config.ts";
import { sealWebhookConfig } from "../../src/postbacks/secrets.ts";
import { newWebhookSecret } from "../../src/postbacks/signing.ts";
import { SKAN_4_FINE } from "../../src/skadnetwork/apple-samples.test-support.ts";
import type { WorkerId } from "../../src/workers/workers.ts";
import {
  MOTO_CREDENTIALS,
  type MotoServer,
  motoClientConfig,
  motoDisabled,
  reportNoMoto,
  sqsEventOf,
  startMoto,
} from "../local-aws/moto.ts";
import { installRequest } from "../support/installs.ts";
import { clearOfMidnight } from "../support/midnight.ts";
import { authorizationsOf } from "./authorizations.ts";
import { isAllowedBy } from "./iam-policy.ts";
import { type Recorder, startRecorder } from "./recorder.ts";
import { type StackOnLocalServers, stackOnLocalServers } from "./stack-on-local-servers.ts";

const run = promisify(execFile);

type Handler = (event: unknown, context: Context) => Promise<unknown>;

const APP = "com.example.bundles";
/** The access key a function signs with here: its own, so its requests can be told apart. */
const accessKeyOf = (id: string) => `bundle-${id}`;
/** The key the admin commands sign with, the operator's, whose grants are not the stack's. */
const OPERATOR_KEY = "operator";
const API_ARN = `arn:aws:execute-api:${TEST_ENV.region}:${TEST_ENV.account}:api/prod`;

/** What is not invoked here, and why; every other row of the manifest is. */
const NOT_HERE: Readonly<Record<string, string>> = {
  export: "Athena runs the export's queries, and nothing here answers Athena's API faithfully",
  reports: "Athena runs the reports' queries",
  "fx-rates": "it fetches the ECB's feed from the internet",
};

/** The function that serves a route: an API route's group's or its own, a link host route's own. */
const functionIdOf = (id: RouteId | LinkHostRouteId): string =>
  ROUTES.some((route) => route.id === id) ? apiFunctionIdOf(id as RouteId) : id;

/** The routes of a group, by the group's name. */
const routesOf = (group: string): RouteId[] =>
  ROUTES.filter((route) => "group" in route && route.group === group).map((route) => route.id);

const lambdaContext = (row: FunctionRow): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: row.id,
  functionVersion: "$LATEST",
  invokedFunctionArn: `arn:aws:lambda:${TEST_ENV.region}:${TEST_ENV.account}:function:${row.id}`,
  memoryLimitInMB: String(row.memoryMb),
  awsRequestId: randomUUID(),
  logGroupName: `/aws/lambda/${row.id}`,
  logStreamName: "bundles",
  getRemainingTimeInMillis: () => (row.timeoutSeconds ?? 60) * 1000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

reportNoMoto(
  "the Lambda bundles against local servers (test/lambda-bundles/lambda-bundles.test.ts)",
);

describe.skipIf(motoDisabled)("the Lambda bundles CDK ships, against local servers", () => {
  const outDir = join(PROJECT_ROOT, "node_modules", ".cache", `lambda-bundles-${process.pid}`);
  const handlers = new Map<string, Handler>();
  const environments = new Map<string, Record<string, string>>();
  const invoked = new Set<string>();
  let moto: MotoServer;
  let closeDynamo: () => Promise<void>;
  /** In front of the DynamoDB server, and of moto's SQS, Firehose and KMS. */
  let recorders: Recorder[] = [];
  let motoRecorder: Recorder;
  let stack: StackOnLocalServers;
  let dynamodb: DynamoDBClient;
  let sqs: SQSClient;
  let s3: S3Client;
  let keys: { sdk: string; server: string };
  const savedEnv = { ...process.env };

  /** The environment every function shares: the region, credentials and local endpoints. */
  const awsEnv = (dynamoEndpoint: string, recorded: string): Record<string, string> => ({
    AWS_REGION: TEST_ENV.region,
    AWS_ACCESS_KEY_ID: MOTO_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: MOTO_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    AWS_ENDPOINT_URL_S3: moto.endpoint,
    AWS_ENDPOINT_URL_SQS: recorded,
    AWS_ENDPOINT_URL_FIREHOSE: recorded,
    AWS_ENDPOINT_URL_KMS: recorded,
    AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: moto.endpoint,
    // Info lines of two dozen functions would bury the test's own output.
    POWERTOOLS_LOG_LEVEL: "ERROR",
  });

  const envOf = (id: string): Record<string, string> => {
    const env = environments.get(id);
    if (!env) throw new Error(`No environment for ${id}`);
    return env;
  };

  beforeAll(async () => {
    moto = await startMoto();
    // DynamoDB on a moto of its own, answering one request at a time as DynamoDB orders
    // conditional writes: the delivery log writes in transactions, which dynalite lacks.
    const dynamoServer = await startMoto({ serial: true });
    const dynamoEndpoint = dynamoServer.endpoint;
    closeDynamo = () => dynamoServer.stop();
    // The functions reach it, and moto's JSON APIs, through recorders, which note who made
    // each request (S3's and Cognito's, not JSON, go to moto directly).
    const dynamoRecorder = await startRecorder(dynamoEndpoint);
    motoRecorder = await startRecorder(moto.endpoint);
    recorders = [dynamoRecorder, motoRecorder];
    const shared = awsEnv(dynamoRecorder.endpoint, motoRecorder.endpoint);
    Object.assign(process.env, shared);
    dynamodb = new DynamoDBClient({ ...motoClientConfig(moto), endpoint: dynamoEndpoint });
    stack = await stackOnLocalServers({ dynamodb, moto });
    sqs = new SQSClient(motoClientConfig(moto));
    s3 = new S3Client(motoClientConfig(moto));

    // Built one after another (two cores), then each imported with its own environment only,
    // as Lambda starts it.
    for (const row of FUNCTIONS) {
      const bundle = await bundleFunction(row.id as FunctionId, outDir);
      const env = await stack.environmentOf(row.id, dirname(bundle.file));
      environments.set(row.id, env);
      const before = { ...process.env };
      for (const name of Object.keys(process.env)) {
        if (!(name in savedEnv) && !(name in shared)) delete process.env[name];
      }
      // SQS's client sends to the host of the queue's URL, whatever its endpoint: a function's
      // queues are named at the recorder, so that its messages pass it too.
      const queuesRecorded = Object.fromEntries(
        Object.entries(env).map(([name, value]) => [
          name,
          name.endsWith("_QUEUE_URL") ? value.replace(moto.endpoint, motoRecorder.endpoint) : value,
        ]),
      );
      Object.assign(process.env, queuesRecorded, { AWS_ACCESS_KEY_ID: accessKeyOf(row.id) });
      if (row.streaming) {
        // The runtime's global for response streaming, which the export's entry wraps itself in.
        (globalThis as Record<string, unknown>).awslambda = {
          streamifyResponse: (handler: unknown) => handler,
          HttpResponseStream: { from: (stream: unknown) => stream },
        };
      }
      try {
        const entry = (await import(pathToFileURL(bundle.file).href)) as { handler?: Handler };
        if (typeof entry.handler !== "function") throw new Error(`${row.id}: no handler export`);
        handlers.set(row.id, entry.handler);
      } finally {
        for (const name of [...Object.keys(env), "AWS_ACCESS_KEY_ID"]) {
          if (before[name] === undefined) delete process.env[name];
          else process.env[name] = before[name];
        }
      }
    }

    // The app and its keys, made by `attribution apps create` on the AWS target, as a user
    // does after `cdk deploy`: in the stack's tables, its private key wrapped by the stack's
    // sealing key.
    const { stdout } = await run(
      process.execPath,
      [
        join(PROJECT_ROOT, "bin", "attribution.js"),
        "apps",
        "create",
        "--app-id",
        APP,
        "--name",
        "Bundles",
        "--platform",
        "ios",
        "--json",
      ],
      {
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: OPERATOR_KEY,
          ATTRIBUTION_AWS_APPS_TABLE: envOf("authorizer")[tableVariable("apps")],
          ATTRIBUTION_AWS_KEYS_TABLE: envOf("authorizer")[tableVariable("keys")],
          ATTRIBUTION_AWS_SEALING_KEY_ARN: envOf("installs").SEALING_KEY_ARN,
        },
      },
    );
    const created = JSON.parse(stdout) as { keys: { kind: string; key: string }[] };
    const keyOf = (kind: string) => created.keys.find((key) => key.kind === kind)?.key ?? "";
    keys = { sdk: keyOf("sdk"), server: keyOf("server") };
  }, 600_000);

  afterAll(async () => {
    for (const name of Object.keys(process.env)) {
      if (!(name in savedEnv)) delete process.env[name];
    }
    Object.assign(process.env, savedEnv);
    sqs?.destroy();
    s3?.destroy();
    dynamodb?.destroy();
    for (const recorder of recorders) await recorder.close();
    await closeDynamo?.();
    await moto?.stop();
    await rm(outDir, { recursive: true, force: true });
  });

  /**
   * A function's handler, run signed with the function's own access key, which its AWS SDK
   * clients read on their first request: the recorder then knows whose each request is.
   */
  const handlerOf = (id: string): Handler => {
    const handler = handlers.get(id);
    if (!handler) throw new Error(`No bundle for ${id}`);
    invoked.add(id);
    return async (...args: Parameters<Handler>) => {
      const shared = process.env.AWS_ACCESS_KEY_ID;
      process.env.AWS_ACCESS_KEY_ID = accessKeyOf(id);
      try {
        return await handler(...args);
      } finally {
        if (shared === undefined) delete process.env.AWS_ACCESS_KEY_ID;
        else process.env.AWS_ACCESS_KEY_ID = shared;
      }
    };
  };

  const rowOf = (id: string): FunctionRow => {
    const row = FUNCTIONS.find((candidate) => candidate.id === id);
    if (!row) throw new Error(`No row ${id}`);
    return row;
  };

  /**
   * A request as API Gateway hands it over: through the authorizer's bundle first when the
   * route takes a key (its policy must allow the method), then the route's bundle with the
   * authorizer's context.
   */
  const call = async (
    id: RouteId | LinkHostRouteId,
    request: {
      readonly path?: Record<string, string>;
      readonly query?: Record<string, string>;
      readonly body?: unknown;
      readonly key?: string;
      /** A dashboard session: its cookie, and its CSRF token sent on every call. */
      readonly session?: { readonly cookie: string; readonly csrfToken: string };
      readonly headers?: Record<string, string>;
      /** Another of the route's methods than its own (a GET route's HEAD). */
      readonly method?: string;
    } = {},
  ): Promise<HttpResponse & { readonly body: string }> => {
    const sessionHeaders: Record<string, string> = request.session
      ? { cookie: request.session.cookie, "x-csrf-token": request.session.csrfToken }
      : {};
    const route = routeOf(id);
    const method = request.method ?? route.method;
    const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(request.path?.[name] ?? ""),
    );
    let authorizer: Record<string, string> | undefined;
    if (route.scope !== null) {
      const methodArn = `${API_ARN}/${method}${path}`;
      // A session's call reaches the REQUEST authorizer, as API Gateway sends it the request.
      const authorizerEvent = request.session
        ? {
            type: "REQUEST",
            methodArn,
            resource: route.path,
            path,
            httpMethod: method,
            headers: sessionHeaders,
            pathParameters: request.path ?? null,
            queryStringParameters: request.query ?? null,
          }
        : { type: "TOKEN", authorizationToken: request.key, methodArn };
      const verdict = (await handlerOf("authorizer")(
        authorizerEvent,
        lambdaContext(rowOf("authorizer")),
      )) as APIGatewayAuthorizerResult;
      expect(isAllowed(verdict.policyDocument as PolicyDocument, methodArn), id).toBe(true);
      // The usage-plan key the request counts against: its app's slot (a person's own for the
      // calls that name no app), one of the keys the stack makes for this API.
      const context = verdict.context as Record<string, string>;
      expect(verdict.usageIdentifierKey, id).toBe(
        usageKeyValue(
          apiIdOf(methodArn),
          usageSlotOf(context.appId ? `app:${context.appId}` : `user:${context.user}`),
        ),
      );
      authorizer = {
        ...(verdict.context as Record<string, string>),
        principalId: verdict.principalId,
      };
    }
    const headers = {
      "content-type": "application/json",
      "user-agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36",
      ...sessionHeaders,
      ...request.headers,
    };
    // The project's API Gateway event, as the stack's REST API stage sends it.
    const base = apiEvent({
      path,
      headers,
      body: request.body === undefined ? null : JSON.stringify(request.body),
      ...(request.query ? { query: request.query } : {}),
      ...(request.path ? { params: request.path } : {}),
      ...(authorizer ? { authorizer } : {}),
    });
    const event: APIGatewayProxyEvent = {
      ...base,
      resource: route.path,
      httpMethod: method,
      multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
      multiValueQueryStringParameters: request.query
        ? Object.fromEntries(Object.entries(request.query).map(([k, v]) => [k, [v]]))
        : null,
      requestContext: {
        ...base.requestContext,
        accountId: TEST_ENV.account,
        apiId: "api",
        stage: "prod",
        httpMethod: method,
        path: `/prod${path}`,
        resourcePath: route.path,
        resourceId: route.id,
        requestId: randomUUID(),
        requestTimeEpoch: Date.now(),
        identity: { ...base.requestContext.identity, userAgent: headers["user-agent"] ?? null },
      },
    };
    const fn = functionIdOf(id);
    const response = (await handlerOf(fn)(event, lambdaContext(rowOf(fn)))) as HttpResponse;
    expect(typeof response.body, `${id} answers a string body`).toBe("string");
    return response as HttpResponse & { readonly body: string };
  };

  /** The answer's status and JSON body held to the route's contract; the body returned. */
  const conforming = (id: RouteId, response: HttpResponse & { body: string }): unknown => {
    const { success } = CONTRACTS[id];
    expect(response.statusCode, `${id}: ${response.body}`).toBe(success.status);
    const schema = success.content?.[JSON_MEDIA_TYPE] as z.ZodType | undefined;
    if (!schema) throw new Error(`${id} documents no JSON answer`);
    const body: unknown = JSON.parse(response.body);
    const parsed = schema.safeParse(body);
    expect(parsed.error?.issues ?? [], `${id}: ${response.body}`).toEqual([]);
    return body;
  };

  /** The lake records a delivery stream has written to moto's S3, as JSON lines. */
  const delivered = async (streamVariableName: string, from = "events"): Promise<unknown[]> => {
    const name = envOf(from)[streamVariableName];
    const stream = name ? stack.streams.get(name) : undefined;
    if (!stream) throw new Error(`No stream named by ${from}'s ${streamVariableName}`);
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: stream.bucket, Prefix: stream.prefix }),
    );
    const records: unknown[] = [];
    for (const object of listed.Contents ?? []) {
      const got = await s3.send(new GetObjectCommand({ Bucket: stream.bucket, Key: object.Key }));
      const text = (await got.Body?.transformToString()) ?? "";
      for (const line of text.split("\n")) if (line) records.push(JSON.parse(line));
    }
    return records;
  };

  /** A worker's messages waiting in its queue, as an SQS event. */
  const queuedEvent = async (worker: WorkerId): Promise<SQSEvent> => {
    const queueUrl = envOf("installs")[queueUrlName(worker)] ?? "";
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        MessageSystemAttributeNames: ["All"],
        WaitTimeSeconds: 0,
      }),
    );
    return sqsEventOf(
      Messages,
      `arn:aws:sqs:${TEST_ENV.region}:${TEST_ENV.account}:${worker}`,
      TEST_ENV.region,
    );
  };

  it("gives each bundle the environment its manifest row asks for, with the stack's names", async () => {
    // The tables made from the template, under its names: a function names only those.
    const { TableNames = [] } = await dynamodb.send(new ListTablesCommand({}));
    for (const row of FUNCTIONS) {
      const env = envOf(row.id);
      const parsed = envSchemaOf(row.uses).safeParse(env);
      expect(parsed.error?.issues ?? [], row.id).toEqual([]);
      for (const table of Object.keys(row.uses.tables ?? {})) {
        expect(TableNames, `${row.id}: ${table}`).toContain(env[tableVariable(table)]);
      }
    }
  });

  const serviceId = randomUUID();
  const eventId = randomUUID();
  const user = "bundles-user-1";
  let deeplinkId = "";
  let requestId = "";

  it("the authorizer refuses an unknown key, and denies a route outside the key's scopes", async () => {
    const authorize = (key: string, method: string, path: string) =>
      handlerOf("authorizer")(
        { type: "TOKEN", authorizationToken: key, methodArn: `${API_ARN}/${method}${path}` },
        lambdaContext(rowOf("authorizer")),
      ) as Promise<APIGatewayAuthorizerResult>;
    // API Gateway answers 401 to exactly this error.
    await expect(authorize("not-a-key", "GET", "/v1/config")).rejects.toThrow(/^Unauthorized$/);
    const route = routeOf("export");
    const verdict = await authorize(keys.sdk, route.method, route.path);
    // Denied this route or not, the key counts against its app's usage-plan key.
    expect(verdict.usageIdentifierKey).toBe(usageKeyValue("api", usageSlotOf(`app:${APP}`)));
    expect(
      isAllowed(
        verdict.policyDocument as PolicyDocument,
        `${API_ARN}/${route.method}${route.path}`,
      ),
    ).toBe(false);
  });

  it("config, through the authorizer, answers the app's configuration", async () => {
    const body = conforming("config", await call("config", { key: keys.sdk }));
    expect(body).toMatchObject({ enabled: true });
  });

  it("installs stores the install and queues its attribution", async () => {
    const body = conforming(
      "installs",
      await call("installs", {
        key: keys.sdk,
        body: installRequest(serviceId, { customer_user_id: user }),
      }),
    );
    expect(body).toEqual({ service_id: serviceId });
  });

  it("the attribution worker takes the queued install from SQS, resolves it and queues its webhook", async () => {
    // The app's backend, configured before the install is resolved (through the store: no
    // configuration route yet), its secret sealed by the stack's key as saving one does.
    const postbackEnv = envOf("postback");
    const doc = DynamoDBDocumentClient.from(dynamodb, {
      marshallOptions: MARSHALL_OPTIONS,
    });
    const wrapper = createKmsKeyWrapper({
      kms: new KMSClient(motoClientConfig(moto)),
      keyId: postbackEnv.SEALING_KEY_ARN ?? "",
    });
    const webhook = parseWebhookConfig({
      id: "backend",
      appId: APP,
      url: "https://127.0.0.1:9/hooks",
      secret: newWebhookSecret(),
    });
    await createPostbackConfigStore(
      doc,
      postbackEnv[tableVariable("postbackConfigs")] ?? "",
    ).putWebhook(await sealWebhookConfig(webhook, wrapper));

    const event = await queuedEvent("attribute");
    expect(event.Records.map((record) => JSON.parse(record.body))).toEqual([
      expect.objectContaining({ serviceId }),
    ]);
    const answer = (await handlerOf("attribute")(
      event,
      lambdaContext(rowOf("attribute")),
    )) as SQSBatchResponse;
    expect(answer.batchItemFailures).toEqual([]);
    const attributions = await delivered(streamVariable("attributions"), "attribute");
    expect(attributions).toEqual([expect.objectContaining({ app_id: APP, service_id: serviceId })]);

    // The postback worker takes the webhook's send: it opens the secret with the stack's key,
    // refuses the loopback address (the stack's default), and logs the attempt.
    const sends = await queuedEvent("postback");
    expect(sends.Records.map((record) => JSON.parse(record.body))).toEqual([
      expect.objectContaining({ appId: APP, attempt: 1 }),
    ]);
    const sent = (await handlerOf("postback")(
      sends,
      lambdaContext(rowOf("postback")),
    )) as SQSBatchResponse;
    expect(sent.batchItemFailures).toEqual([]);
    const { entries } = await createDeliveryLog(
      doc,
      postbackEnv[tableVariable("deliveryLog")] ?? "",
    ).listByApp(APP, { limit: 10 });
    expect(entries).toEqual([
      expect.objectContaining({
        partner: "webhook",
        subject: { kind: "install", serviceId, eventId: null },
        verdict: "failed",
        error: expect.stringMatching(/^not sent: the URL points to a loopback address/),
      }),
    ]);
  });

  it("the attribution worker matches a later install to a network's click by its IDFA, and claims the click", async () => {
    const idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC";
    conforming(
      "touches",
      await call("touches", {
        key: keys.server,
        body: {
          touches: [
            {
              touch_type: "click",
              touch_time: new Date(Date.now() - 2 * 3_600_000).toISOString(),
              media_source: "bundlesnet_int",
              campaign_name: "By IDFA",
              click_id: "bundles-idfa-click",
              maid: idfa,
            },
          ],
        },
      }),
    );
    const matched = randomUUID();
    conforming(
      "installs",
      await call("installs", {
        key: keys.sdk,
        body: installRequest(matched, { maid: idfa, att_status: "authorized" }),
      }),
    );
    const event = await queuedEvent("attribute");
    expect(event.Records.map((record) => JSON.parse(record.body))).toEqual([
      expect.objectContaining({ serviceId: matched }),
    ]);
    const answer = (await handlerOf("attribute")(
      event,
      lambdaContext(rowOf("attribute")),
    )) as SQSBatchResponse;
    expect(answer.batchItemFailures).toEqual([]);
    expect(await delivered(streamVariable("attributions"), "attribute")).toContainEqual(
      expect.objectContaining({
        service_id: matched,
        media_source: "bundlesnet_int",
        campaign_name: "By IDFA",
      }),
    );
    // The install's webhook send, taken by the postback worker (refused: a loopback address).
    const sent = (await handlerOf("postback")(
      await queuedEvent("postback"),
      lambdaContext(rowOf("postback")),
    )) as SQSBatchResponse;
    expect(sent.batchItemFailures).toEqual([]);
  });

  it("one bundle serves the postbacks group's routes: the catalog, a webhook saved with its secret sealed, the settings, the configurations and the delivery log", async () => {
    // Every route of the group reaches the same function, which routes by method and resource.
    expect(new Set(routesOf("postbacks").map(functionIdOf))).toEqual(new Set(["postbacks"]));
    const catalog = conforming("list-partners", await call("list-partners", { key: keys.server }));
    expect(catalog).toMatchObject({ data: expect.arrayContaining([expect.anything()]) });
    const saved = conforming(
      "put-webhook",
      await call("put-webhook", {
        key: keys.server,
        path: { config_id: "bundles-hook" },
        // An address literal: checked without a DNS lookup, and never called here.
        body: { url: "https://93.184.215.14/hooks" },
      }),
    ) as { secret?: string };
    // A new webhook's signing secret, shown once, sealed by the stack's key before it is stored.
    expect(saved.secret).toMatch(/^whsec_/);
    conforming(
      "put-postback-settings",
      await call("put-postback-settings", {
        key: keys.server,
        body: { share_device_data_without_consent: true },
      }),
    );
    const listed = conforming(
      "list-postbacks",
      await call("list-postbacks", { key: keys.server }),
    ) as { webhooks: { id: string }[]; settings: unknown };
    expect(listed.webhooks.map((webhook) => webhook.id).sort()).toEqual([
      "backend",
      "bundles-hook",
    ]);
    expect(listed.settings).toEqual({ share_device_data_without_consent: true });
    // The attempts the postback worker's bundle logged above, one per install.
    const log = conforming("postback-log", await call("postback-log", { key: keys.server }));
    expect(log).toMatchObject({
      data: [expect.objectContaining({ attempt: 1 }), expect.objectContaining({ attempt: 1 })],
    });
    const removed = await call("delete-webhook", {
      key: keys.server,
      path: { config_id: "bundles-hook" },
    });
    expect(removed.statusCode, removed.body).toBe(204);
  });

  it("apple-postback stores Apple's example under the app of its App Store id and puts its lake row", {
    timeout: 120_000,
  }, async () => {
    // A postback is listed on the day it came: today, at both ends of the test.
    await clearOfMidnight(120_000);
    await dynamodb.send(
      new UpdateItemCommand({
        TableName: envOf("apple-postback")[tableVariable("apps")],
        Key: { appId: { S: APP } },
        UpdateExpression: "SET links = :links",
        ExpressionAttributeValues: { ":links": { M: { appStoreId: { S: "525463029" } } } },
      }),
    );
    const posted = await call("apple-postback", {
      path: { framework: "skadnetwork" },
      body: SKAN_4_FINE,
    });
    expect(posted.statusCode, posted.body).toBe(200);
    expect(JSON.parse(posted.body)).toEqual({ stored: "new" });
    const again = await call("apple-postback", {
      path: { framework: "skadnetwork" },
      body: SKAN_4_FINE,
    });
    expect(JSON.parse(again.body)).toEqual({ stored: "duplicate" });
    const rows = await delivered(streamVariable("apple_postbacks"), "apple-postback");
    expect(rows).toEqual([
      expect.objectContaining({
        app_id: APP,
        transaction_id: SKAN_4_FINE["transaction-id"],
        verification: "verified",
      }),
    ]);
    // The skadnetwork group's one bundle lists it (its report is Athena's query, as the
    // reports' are), and the costs group's keeps a cost row.
    const today = new Date().toISOString().slice(0, 10);
    const listed = conforming(
      "list-skadnetwork-postbacks",
      await call("list-skadnetwork-postbacks", {
        key: keys.server,
        query: { from: today, to: today },
      }),
    );
    expect(listed).toMatchObject({
      data: [expect.objectContaining({ transaction_id: SKAN_4_FINE["transaction-id"] })],
    });
    const costs = conforming(
      "put-costs",
      await call("put-costs", {
        key: keys.server,
        body: {
          rows: [
            { day: today, media_source: "net", campaign_id: "c1", amount: 10, currency: "USD" },
          ],
        },
      }),
    );
    expect(costs).toEqual({ accepted: 1, replaced: 0, warnings: [] });
  });

  it("consent replaces the install's consent in the installs table", async () => {
    const consent = { gdpr_applies: true, ad_user_data: true, ad_personalization: false };
    const body = conforming(
      "consent",
      await call("consent", {
        key: keys.sdk,
        path: { service_id: serviceId },
        body: { sent_at: new Date().toISOString(), consent },
      }),
    );
    expect(body).toEqual({
      service_id: serviceId,
      consent: { ...consent, tcf_string: null, updated_at: expect.any(String) },
    });
  });

  it("attribution answers the install's resolved attribution", async () => {
    const body = conforming(
      "attribution",
      await call("attribution", { key: keys.sdk, path: { service_id: serviceId } }),
    );
    expect(body).toMatchObject({ service_match_status: "organic" });
  });

  it("events puts the accepted event on the events stream (Firehose)", async () => {
    const body = conforming(
      "events",
      await call("events", {
        key: keys.sdk,
        body: {
          events: [
            {
              event_id: eventId,
              service_id: serviceId,
              event_type: "PURCHASE",
              event_time: new Date(Date.now() - 60_000).toISOString(),
              // Names the user, whom the server-to-server events below then reach.
              customer_user_id: user,
              parameters: { revenue: 4.99, currency: "EUR" },
            },
          ],
        },
      }),
    );
    expect(body).toMatchObject({ accepted: 1 });
    const events = await delivered(streamVariable("events"));
    expect(events).toContainEqual(
      expect.objectContaining({ app_id: APP, event_id: eventId, service_id: serviceId }),
    );
  });

  it("app-sessions puts the install's session on the sessions stream (Firehose)", async () => {
    const sessionId = randomUUID();
    const body = conforming(
      "app-sessions",
      await call("app-sessions", {
        key: keys.sdk,
        body: {
          sent_at: new Date().toISOString(),
          sessions: [
            {
              session_id: sessionId,
              service_id: serviceId,
              started_at: new Date(Date.now() - 30_000).toISOString(),
            },
          ],
        },
      }),
    );
    expect(body).toEqual({ accepted: 1, ignored: [], rejected: [] });
    expect(await delivered(streamVariable("sessions"), "app-sessions")).toContainEqual(
      expect.objectContaining({ app_id: APP, session_id: sessionId, service_id: serviceId }),
    );
  });

  it("s2s-events resolves the customer user id to the install", async () => {
    const s2sId = randomUUID();
    const body = conforming(
      "s2s-events",
      await call("s2s-events", {
        key: keys.server,
        body: {
          events: [
            {
              event_id: s2sId,
              customer_user_id: user,
              event_type: "SUBSCRIBE",
              event_time: new Date(Date.now() - 60_000).toISOString(),
            },
          ],
        },
      }),
    );
    expect(body, JSON.stringify(body)).toMatchObject({ accepted: 1 });
    expect(await delivered(streamVariable("events"))).toContainEqual(
      expect.objectContaining({ event_id: s2sId, service_id: serviceId }),
    );
  });

  it("touches records a click and puts it on the touches stream", async () => {
    const body = conforming(
      "touches",
      await call("touches", {
        key: keys.server,
        body: {
          touches: [
            {
              touch_type: "click",
              touch_time: new Date(Date.now() - 60_000).toISOString(),
              media_source: "network",
              click_id: "bundles-click-1",
            },
          ],
        },
      }),
    );
    expect(body).toMatchObject({ accepted: [{ index: 0 }] });
    expect(await delivered(streamVariable("touches"), "touches")).toContainEqual(
      expect.objectContaining({ app_id: APP, network_click_id: "bundles-click-1" }),
    );
  });

  it("create-link, list-links and get-link make and read a link", async () => {
    const made = conforming(
      "create-link",
      await call("create-link", {
        key: keys.server,
        body: {
          media_source: "network",
          deep_link_path: "/promo",
          params: { promo: "X" },
          web_url: "https://game.example.com/winter",
        },
      }),
    ) as { deeplink_id: string; url: string };
    deeplinkId = made.deeplink_id;
    const listed = conforming(
      "list-links",
      await call("list-links", { key: keys.server, query: { limit: "10" } }),
    );
    expect(listed).toMatchObject({ data: [{ deeplink_id: deeplinkId }] });
    const got = conforming(
      "get-link",
      await call("get-link", { key: keys.server, path: { deeplink_id: deeplinkId } }),
    );
    // Its HEAD, as API Gateway sends it: allowed by the key's policy, and routed by the links
    // group's bundle to the GET.
    const head = await call("get-link", {
      key: keys.server,
      path: { deeplink_id: deeplinkId },
      method: "HEAD",
    });
    expect(head.statusCode).toBe(200);
    expect(JSON.parse(head.body)).toEqual(got);
  });

  it("the link host's click stores the tap and redirects, and tap-lake puts it on the lake's stream", async () => {
    const response = await call("click", { path: { deeplink_id: deeplinkId } });
    expect(response.statusCode).toBe(302);
    expect(response.headers?.location ?? response.headers?.Location).toBeTruthy();
    // The tap's one write: its item in the touches table, which the table's stream carries to
    // tap-lake, as DynamoDB Streams hands a new item over (no local server has the stream).
    const { Items = [] } = await dynamodb.send(
      new ScanCommand({ TableName: envOf("click")[tableVariable("touches")] }),
    );
    const taps = Items.filter((item) => item.source?.S === "link" && item.appId?.S === APP);
    expect(taps.length).toBeGreaterThan(0);
    const lake = streamVariable("touches");
    const tapsInLake = async () =>
      (await delivered(lake, "tap-lake")).filter(
        (row) => (row as { source?: string }).source === "link",
      );
    // The tap itself put nothing on the lake's stream.
    expect(await tapsInLake()).toEqual([]);
    await handlerOf("tap-lake")(
      {
        Records: taps.map((image, n) => ({
          eventName: "INSERT",
          eventSource: "aws:dynamodb",
          dynamodb: { NewImage: image, SequenceNumber: String(n + 1), StreamViewType: "NEW_IMAGE" },
        })),
      },
      lambdaContext(rowOf("tap-lake")),
    );
    expect(await tapsInLake()).toEqual(
      taps.map((item) =>
        expect.objectContaining({ app_id: APP, touch_type: "click", click_id: item.clickId?.S }),
      ),
    );
  });

  it("update-link disables the link", async () => {
    const updated = conforming(
      "update-link",
      await call("update-link", {
        key: keys.server,
        path: { deeplink_id: deeplinkId },
        body: { disabled: true },
      }),
    );
    expect(updated).toMatchObject({ deeplink_id: deeplinkId, disabled: true });
  });

  it("the link host's .well-known files answer JSON", async () => {
    for (const id of ["apple-app-site-association", "assetlinks"] as const) {
      const response = await call(id);
      expect(response.statusCode, id).toBe(200);
      expect(() => JSON.parse(response.body), id).not.toThrow();
    }
  });

  it("delete-install records a deletion request, and deletion-status reads it", async () => {
    const requested = conforming(
      "delete-install",
      await call("delete-install", { key: keys.sdk, path: { service_id: serviceId } }),
    ) as { request_id: string };
    requestId = requested.request_id;
    const status = conforming(
      "deletion-status",
      await call("deletion-status", { key: keys.server, path: { request_id: requestId } }),
    );
    expect(status).toMatchObject({ request_id: requestId, service_id: serviceId });
    // The same request from the app's servers: the open one is answered.
    const fromServer = conforming(
      "request-deletion",
      await call("request-deletion", { key: keys.server, body: { service_id: serviceId } }),
    );
    expect(fromServer).toMatchObject({ request_id: requestId, service_id: serviceId });
  });

  it("the purge completes the deletion request once it is old enough", async () => {
    // A request younger than the stack's MIN_REQUEST_AGE_SECONDS waits for a later run (Firehose
    // may still hold the install's rows): this one is dated back past it.
    const minAgeSeconds = Number(envOf("purge").MIN_REQUEST_AGE_SECONDS);
    await dynamodb.send(
      new UpdateItemCommand({
        TableName: envOf("purge")[tableVariable("deletions")],
        Key: { requestId: { S: requestId } },
        UpdateExpression: "SET requestedAt = :old",
        ExpressionAttributeValues: {
          ":old": { S: new Date(Date.now() - (minAgeSeconds + 60) * 1000).toISOString() },
        },
      }),
    );
    const answer = await handlerOf("purge")(
      { "detail-type": "Scheduled Event", source: "aws.events", detail: {} },
      lambdaContext(rowOf("purge")),
    );
    // How many requests it completed: a count, or an object naming it.
    const completed =
      typeof answer === "number" ? answer : (answer as { completed?: number }).completed;
    expect(completed).toBe(1);
    const status = conforming(
      "deletion-status",
      await call("deletion-status", { key: keys.server, path: { request_id: requestId } }),
    );
    expect(status).toMatchObject({ request_id: requestId, status: "completed" });
  });

  it("the dashboard: a person added with the CLI on AWS signs in through Cognito and manages an app with the session", {
    timeout: 120_000,
  }, async () => {
    // A postback is listed on the day it came: today, at both ends of the test.
    await clearOfMidnight(120_000);
    const email = "person@example.com";
    const password = "A long enough password 1!";
    /** Made an admin, or no longer one, in the users table: the item that says who is one. */
    const makeAdmin = (admin: boolean) =>
      dynamodb.send(
        new UpdateItemCommand({
          TableName: envOf("authorizer")[tableVariable("users")],
          Key: { email: { S: email } },
          UpdateExpression: "SET #admin = :admin",
          ExpressionAttributeNames: { "#admin": "admin" },
          ExpressionAttributeValues: { ":admin": { BOOL: admin } },
        }),
      );
    await run(
      process.execPath,
      [join(PROJECT_ROOT, "bin", "attribution.js"), "users", "add", email, "--password", password],
      {
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: OPERATOR_KEY,
          ATTRIBUTION_AWS_APPS_TABLE: envOf("authorizer")[tableVariable("apps")],
          ATTRIBUTION_AWS_KEYS_TABLE: envOf("authorizer")[tableVariable("keys")],
          ATTRIBUTION_AWS_USERS_TABLE: envOf("authorizer")[tableVariable("users")],
          ATTRIBUTION_AWS_USER_POOL_ID: envOf(functionIdOf("sign-in")).USER_POOL_ID,
        },
      },
    );
    expect((await call("sign-in", { body: { email, password: "not it" } })).statusCode).toBe(401);
    const signedIn = await call("sign-in", { body: { email, password } });
    const answer = conforming("sign-in", signedIn) as { csrf_token: string };
    const setCookie = signedIn.headers["set-cookie"] ?? "";
    // HTTPS only on AWS: the cookie is Secure.
    expect(setCookie).toMatch(/^attribution_session=[^;]+;.*HttpOnly; SameSite=Strict; Secure$/);
    const session = { cookie: setCookie.split(";")[0] ?? "", csrfToken: answer.csrf_token };
    conforming("session", await call("session", { session }));

    const appId = "com.example.dashboard";
    conforming(
      "create-app",
      await call("create-app", {
        session,
        body: { app_id: appId, name: "Dashboard", platform: "android" },
      }),
    );
    const listed = conforming("list-apps", await call("list-apps", { session })) as {
      apps: { app_id: string }[];
    };
    expect(listed.apps.map((app) => app.app_id)).toEqual([appId]);
    conforming("get-app", await call("get-app", { session, path: { app_id: appId } }));
    // Sealing on: a new key pair, its private key wrapped by the stack's KMS key.
    const updated = conforming(
      "update-app",
      await call("update-app", {
        session,
        path: { app_id: appId },
        body: { encryption: { enabled: true }, attribution: { click_window_days: 3 } },
      }),
    ) as { app: { encryption: { key_id: string | null } } };
    expect(updated.app.encryption.key_id).not.toBeNull();
    const made = conforming(
      "create-key",
      await call("create-key", { session, path: { app_id: appId }, body: { kind: "sdk" } }),
    ) as { key: { key: string; key_id: string } };
    conforming("config", await call("config", { key: made.key.key }));
    conforming("list-keys", await call("list-keys", { session, path: { app_id: appId } }));
    conforming(
      "revoke-key",
      await call("revoke-key", {
        session,
        path: { app_id: appId, key_id: made.key.key_id },
      }),
    );
    await expect(
      handlerOf("authorizer")(
        { type: "TOKEN", authorizationToken: made.key.key, methodArn: `${API_ARN}/GET/v1/config` },
        lambdaContext(rowOf("authorizer")),
      ),
    ).rejects.toThrow("Unauthorized");
    // Another person's app, or none at all, is refused by the authorizer.
    const other = (await handlerOf("authorizer")(
      {
        type: "REQUEST",
        methodArn: `${API_ARN}/GET/v1/apps/${APP}`,
        httpMethod: "GET",
        headers: { cookie: session.cookie },
        pathParameters: { app_id: APP },
      },
      lambdaContext(rowOf("authorizer")),
    )) as APIGatewayAuthorizerResult;
    expect(isAllowed(other.policyDocument as PolicyDocument, `${API_ARN}/GET/v1/apps/${APP}`)).toBe(
      false,
    );
    // The postbacks of no app are the service's admins' alone: this person is none, until made
    // one, and then sees the one just posted.
    const today = new Date().toISOString().slice(0, 10);
    const window = { from: today, to: today };
    const refused = await call("unknown-skadnetwork-postbacks", { session, query: window });
    expect(refused.statusCode, refused.body).toBe(401);
    const posted = await call("apple-postback", {
      path: { framework: "skadnetwork" },
      body: {
        ...SKAN_4_FINE,
        "app-id": 1111111111,
        "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e77",
      },
    });
    expect(JSON.parse(posted.body)).toEqual({ stored: "new" });
    // Made an admin in the users table (an admin's own sign-in asks a TOTP code on AWS): the
    // route reads who its person is at each call.
    await makeAdmin(true);
    expect(
      conforming(
        "unknown-skadnetwork-postbacks",
        await call("unknown-skadnetwork-postbacks", { session, query: window }),
      ),
    ).toMatchObject({
      app_store_ids: [{ app_store_id: "1111111111", postbacks: 1, verified: 0 }],
      truncated: false,
    });

    expect((await call("sign-out", { session })).statusCode).toBe(204);
    expect((await call("session", { session })).statusCode).toBe(401);

    // No admin again (whose sign-in would ask a TOTP code first), signed in again, then disabled
    // in the pool (its console's switch): Cognito refuses the person's sign-ins, and the
    // disabled-accounts job ends the session already open.
    await makeAdmin(false);
    const again = await call("sign-in", { body: { email, password } });
    const reopened = {
      cookie: (again.headers["set-cookie"] ?? "").split(";")[0] ?? "",
      csrfToken: (conforming("sign-in", again) as { csrf_token: string }).csrf_token,
    };
    conforming("session", await call("session", { session: reopened }));
    const cognito = new CognitoIdentityProviderClient(motoClientConfig(moto));
    await cognito.send(
      new AdminDisableUserCommand({
        UserPoolId: envOf(functionIdOf("sign-in")).USER_POOL_ID,
        Username: email,
      }),
    );
    expect((await call("sign-in", { body: { email, password } })).statusCode).toBe(401);
    conforming("session", await call("session", { session: reopened }));
    const ended = await handlerOf("disabled-accounts")(
      { "detail-type": "Scheduled Event", source: "aws.events", detail: {} },
      lambdaContext(rowOf("disabled-accounts")),
    );
    expect(ended).toBe(1);
    expect((await call("session", { session: reopened })).statusCode).toBe(401);
    // The next run finds the disabling's generation set: no write.
    const nextRun = await handlerOf("disabled-accounts")(
      { "detail-type": "Scheduled Event", source: "aws.events", detail: {} },
      lambdaContext(rowOf("disabled-accounts")),
    );
    expect(nextRun).toBe(0);
  });

  it("the People routes: an admin's session lists the people, adds one whose password Cognito takes, grants and revokes an app, resets the password and removes them; a member's session is refused", {
    timeout: 120_000,
  }, async () => {
    const email = "people-admin@example.com";
    const password = "Another long password 2!";
    const usersTable = envOf("authorizer")[tableVariable("users")];
    await run(
      process.execPath,
      [join(PROJECT_ROOT, "bin", "attribution.js"), "users", "add", email, "--password", password],
      {
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: OPERATOR_KEY,
          ATTRIBUTION_AWS_APPS_TABLE: envOf("authorizer")[tableVariable("apps")],
          ATTRIBUTION_AWS_KEYS_TABLE: envOf("authorizer")[tableVariable("keys")],
          ATTRIBUTION_AWS_USERS_TABLE: usersTable,
          ATTRIBUTION_AWS_USER_POOL_ID: envOf(functionIdOf("sign-in")).USER_POOL_ID,
        },
      },
    );
    const signedIn = async (who: string, secret: string) => {
      const answer = await call("sign-in", { body: { email: who, password: secret } });
      expect(answer.statusCode, answer.body).toBe(200);
      return {
        cookie: (answer.headers["set-cookie"] ?? "").split(";")[0] ?? "",
        csrfToken: (JSON.parse(answer.body) as { csrf_token: string }).csrf_token,
      };
    };
    // Signed in as a member (an admin's sign-in asks a TOTP code on AWS): refused the people.
    const session = await signedIn(email, password);
    const asMember = (await handlerOf("authorizer")(
      {
        type: "REQUEST",
        methodArn: `${API_ARN}/GET/v1/users`,
        httpMethod: "GET",
        headers: { cookie: session.cookie },
        pathParameters: null,
      },
      lambdaContext(rowOf("authorizer")),
    )) as APIGatewayAuthorizerResult;
    expect(isAllowed(asMember.policyDocument as PolicyDocument, `${API_ARN}/GET/v1/users`)).toBe(
      false,
    );
    // Made an admin in the users table: the authorizer reads who its person is at each call.
    await dynamodb.send(
      new UpdateItemCommand({
        TableName: usersTable,
        Key: { email: { S: email } },
        UpdateExpression: "SET #admin = :admin",
        ExpressionAttributeNames: { "#admin": "admin" },
        ExpressionAttributeValues: { ":admin": { BOOL: true } },
      }),
    );
    const listed = conforming("list-users", await call("list-users", { session })) as {
      users: { email: string; role: string }[];
    };
    expect(listed.users).toContainEqual(expect.objectContaining({ email, role: "admin" }));

    const person = "people-viewer@example.com";
    const added = await call("create-user", {
      session,
      body: { email: person, role: "viewer", app_ids: [APP] },
    });
    expect(added.headers["cache-control"]).toBe("no-store");
    const { password: first } = conforming("create-user", added) as { password: string };
    // Cognito holds the password made: the person signs in with it.
    const theirs = await signedIn(person, first);
    conforming("session", await call("session", { session: theirs }));

    const path = { email: person, app_id: APP };
    expect(
      conforming("revoke-user-app", await call("revoke-user-app", { session, path })),
    ).toMatchObject({ user: { email: person, app_ids: [] } });
    expect(
      conforming("grant-user-app", await call("grant-user-app", { session, path })),
    ).toMatchObject({ user: { email: person, app_ids: [APP] } });

    const reset = await call("reset-user-password", { session, path: { email: person } });
    expect(reset.headers["cache-control"]).toBe("no-store");
    const { password: second } = conforming("reset-user-password", reset) as { password: string };
    // Their session ended with the old password, which signs in no more.
    expect((await call("session", { session: theirs })).statusCode).toBe(401);
    expect((await call("sign-in", { body: { email: person, password: first } })).statusCode).toBe(
      401,
    );
    await signedIn(person, second);

    const removed = await call("remove-user", { session, path: { email: person } });
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await call("sign-in", { body: { email: person, password: second } })).statusCode).toBe(
      401,
    );
    const after = conforming("list-users", await call("list-users", { session })) as {
      users: { email: string }[];
    };
    expect(after.users.map((user) => user.email)).not.toContain(person);
    // Nor may the admin remove themselves.
    expect((await call("remove-user", { session, path: { email } })).statusCode).toBe(409);
  });

  it("openapi answers the document without a key", async () => {
    conforming("openapi", await call("openapi"));
  });

  it("the attribution sweep finds nothing unfinished", async () => {
    const job = AWS_JOBS.find((candidate) => candidate.id === "attribution-sweep");
    if (!job) throw new Error("no attribution sweep");
    const answer = await handlerOf(job.id)(
      { "detail-type": "Scheduled Event", source: "aws.events", detail: {} },
      lambdaContext(rowOf(job.id)),
    );
    // How many it queued again: a count, or an object naming it.
    const queued = typeof answer === "number" ? answer : (answer as { queued?: number }).queued;
    expect(queued).toBe(0);
  });

  it("a scheduled job that keeps failing is tried three times, then reaches its failure queue", async () => {
    // The sweep's table gone: every run fails, as a purge would against a broken store.
    const table = envOf("attribution-sweep")[tableVariable("attributions")];
    await dynamodb.send(new DeleteTableCommand({ TableName: table }));
    const event = { "detail-type": "Scheduled Event", source: "aws.events", detail: {} };
    const { tries, failureQueueUrl } = await stack.invokeAsync("attribution-sweep", event, () =>
      handlerOf("attribution-sweep")(event, lambdaContext(rowOf("attribution-sweep"))),
    );
    expect(tries).toBe(3);
    expect(failureQueueUrl).toBeDefined();
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: failureQueueUrl, MaxNumberOfMessages: 10 }),
    );
    expect(Messages).toHaveLength(1);
    const record = JSON.parse(Messages[0]?.Body ?? "{}") as {
      requestContext: { condition: string; approximateInvokeCount: number };
      requestPayload: unknown;
      responsePayload: { errorMessage: string };
    };
    expect(record.requestContext).toMatchObject({
      condition: "RetriesExhausted",
      approximateInvokeCount: 3,
    });
    expect(record.requestPayload).toEqual(event);
    expect(record.responsePayload.errorMessage).toMatch(/resource|table/i);
  });

  it("every DynamoDB, SQS, Firehose and KMS request a function made, its role's policy on AWS allows", () => {
    const functionOfKey = new Map(FUNCTIONS.map((row) => [accessKeyOf(row.id), row.id]));
    const refused = new Set<string>();
    const requesters = new Map<string, Set<string>>();
    const unknown = new Set<string>();
    for (const request of recorders.flatMap((recorder) => recorder.requests)) {
      // The operator's (the CLI's `apps create`, `users add`) are under the operator's grants.
      if (request.accessKey === OPERATOR_KEY) continue;
      const id = functionOfKey.get(request.accessKey);
      // A function's client that signed outside its invocation (with the shared key) would
      // escape the check: none may.
      if (id === undefined) {
        unknown.add(`${request.accessKey}: ${request.service}.${request.operation}`);
        continue;
      }
      const services = requesters.get(id) ?? new Set<string>();
      services.add(request.service);
      requesters.set(id, services);
      const statements = stack.statementsOf(id);
      for (const needed of authorizationsOf(request, stack.local)) {
        if (!isAllowedBy(statements, needed)) {
          const keys = needed.leadingKeys.map((key) => key.replace(/#.*/, "#…")).join(", ");
          const context = JSON.stringify(needed.conditionValues ?? {});
          refused.add(
            `${id}: ${needed.action} on ${needed.resource} (keys: ${keys || "none"}; context ${context})`,
          );
        }
      }
    }
    expect([...refused].sort()).toEqual([]);
    expect([...unknown]).toEqual([]);
    // Heard from under its own key: every function that keeps its state in tables, each that
    // puts on a stream, and each that seals or opens with the sealing key.
    const heard = (service: string) =>
      [...requesters].filter(([, services]) => services.has(service)).map(([id]) => id);
    const using = (uses: (row: FunctionRow) => boolean) =>
      FUNCTIONS.filter((row) => invoked.has(row.id) && uses(row)).map((row) => row.id);
    expect(heard("DynamoDB_20120810").sort()).toEqual(
      using((row) => Object.keys(row.uses.tables ?? {}).length > 0).sort(),
    );
    expect(heard("Firehose_20150804").length).toBeGreaterThan(0);
    expect(heard("TrentService").length).toBeGreaterThan(0);
    expect(heard("AmazonSQS").length).toBeGreaterThan(0);
  });

  it("invokes every bundle but those with no faithful local server", () => {
    const expected = FUNCTIONS.map((row) => row.id).filter((id) => !(id in NOT_HERE));
    expect([...invoked].sort()).toEqual([...expected].sort());
    console.info(
      `Lambda bundles not invoked here: ${Object.entries(NOT_HERE)
        .map(([id, why]) => `${id} (${why})`)
        .join("; ")}`,
    );
  });
});
