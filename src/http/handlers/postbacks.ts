/**
 * The postback routes: the partner catalog, and an app's partner and webhook configurations,
 * its postback settings, a test postback, and the delivery log (docs/postbacks.md). A server
 * key or a dashboard session with the `postbacks` scope.
 */
import { lookup } from "node:dns/promises";
import type { APIGatewayProxyEvent } from "aws-lambda";
import * as z from "zod";
import { createHttpSender } from "../../adapters/postback-sender/http-sender.ts";
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import type { AppStore } from "../../ports/apps.ts";
import type { SendTarget } from "../../ports/postbacks.ts";
import {
  createPostbackConfigurations,
  LOG_PAGE_LIMITS,
  type PostbackConfigurationsDeps,
} from "../../postbacks/configurations.ts";
import {
  catalogPage,
  countsAnswer,
  logEntryAnswer,
  parseTestRequest,
  partnerAnswer,
  partnerRequestSchema,
  settingsAnswer,
  settingsFrom,
  settingsRequestSchema,
  webhookAnswer,
  webhookRequestSchema,
} from "../../postbacks/wire.ts";
import { checked } from "../../validation/issues.ts";
import { routeQuery } from "../../validation/query.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { pageParams } from "../page-query.ts";
import { pathParam } from "../path-param.ts";
import { appQuery, principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

const ID_RULE = "must be 1 to 64 characters of A-Z, a-z, 0-9, _ or -";
export const configIdParam = z
  .string({ error: ID_RULE })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: ID_RULE });

export const logQuery = routeQuery(pageParams("Attempts", LOG_PAGE_LIMITS));

export interface PostbackHandlerDeps extends PostbackConfigurationsDeps {
  readonly apps: Pick<AppStore, "get">;
}

export const createPostbackHandlers = (deps: PostbackHandlerDeps) => {
  const configurations = createPostbackConfigurations(deps);
  const appOf = (event: APIGatewayProxyEvent) => principalOf(event, "postbacks").appId;
  const body = (event: APIGatewayProxyEvent) => readJsonBody(event, INGEST_LIMITS.maxBodyBytes);
  const idOf = (event: APIGatewayProxyEvent) => pathParam(event, "config_id", configIdParam);

  const test = (target: SendTarget) =>
    httpRoute(async (event) => {
      const appId = appOf(event);
      const id = idOf(event);
      const request = parseTestRequest(event.body ? body(event) : {});
      const app = await deps.apps.get(appId);
      const platform = request.platform ?? (app?.platform === "ios" ? "ios" : "android");
      const result = await configurations.test(appId, target, id, {
        kind: request.kind,
        platform,
        ...(app ? { app } : {}),
        ...(request.event_name === undefined ? {} : { eventName: request.event_name }),
      });
      return jsonResponse(200, result);
    });

  const remove = (target: SendTarget) =>
    httpRoute(async (event) => {
      const appId = appOf(event);
      await configurations.remove(appId, target, idOf(event));
      return { statusCode: 204, headers: {}, body: "" };
    });

  return {
    listPostbacks: httpRoute(async (event) => {
      const listed = await configurations.list(appOf(event));
      return jsonResponse(200, {
        partners: listed.partners.map(partnerAnswer),
        // Answers mask the credentials of URLs and headers (wire.ts) for every reader, viewers
        // included; a masked value sent back keeps the stored one (configurations.ts).
        webhooks: listed.webhooks.map((webhook) => webhookAnswer(webhook)),
        settings: settingsAnswer(listed.settings),
        counts: listed.counts.map(countsAnswer),
      });
    }),
    putPartner: httpRoute(async (event) => {
      const appId = appOf(event);
      const id = idOf(event);
      const request = checked(partnerRequestSchema, body(event), "body");
      const { stored } = await configurations.putPartner(appId, id, request);
      return jsonResponse(200, partnerAnswer(stored));
    }),
    deletePartner: remove("partner"),
    testPartner: test("partner"),
    putWebhook: httpRoute(async (event) => {
      const appId = appOf(event);
      const id = idOf(event);
      const request = checked(webhookRequestSchema, body(event), "body");
      const { stored, secret } = await configurations.putWebhook(appId, id, request);
      return jsonResponse(200, webhookAnswer(stored, secret));
    }),
    deleteWebhook: remove("webhook"),
    testWebhook: test("webhook"),
    putSettings: httpRoute(async (event) => {
      const appId = appOf(event);
      const settings = settingsFrom(checked(settingsRequestSchema, body(event), "body"));
      await configurations.saveSettings(appId, settings);
      return jsonResponse(200, settingsAnswer(settings));
    }),
    log: httpRoute(async (event) => {
      const { appId, query } = appQuery(event, "postbacks", logQuery);
      const page = await configurations.logPage(appId, {
        limit: query.limit,
        ...(query.cursor === undefined ? {} : { after: query.cursor }),
      });
      return jsonResponse(200, { data: page.entries.map(logEntryAnswer), next_cursor: page.next });
    }),
  };
};

/** Every name's addresses, as the configuration check reads them. */
const resolveAll = (hostname: string) => lookup(hostname, { all: true });

/** The configuration routes share one composition. */
const postbackHandlers = /* @__PURE__ */ sharedBy(
  (adapters: Adapters<ReturnType<typeof routeOf<"list-postbacks">>["uses"]>, runtime: Runtime) =>
    createPostbackHandlers({
      apps: runtime.apps(adapters.tables.apps),
      // Written through the runtime's own store, so its cache of the triggers hears of it.
      store: adapters.tables.postbackConfigs,
      log: adapters.tables.deliveryLog,
      deletions: adapters.tables.deletions,
      wrapper: adapters.keyWrapper,
      resolve: resolveAll,
      allowLoopback: adapters.settings.postbacksAllowLoopback,
      sender: createHttpSender({ allowLoopback: adapters.settings.postbacksAllowLoopback }),
    }),
);

export const listPartnersFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("list-partners"),
  () => httpRoute(async () => jsonResponse(200, catalogPage())),
);

export const listPostbacksFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("list-postbacks"),
  (adapters, runtime) => postbackHandlers(adapters, runtime).listPostbacks,
);

export const putPartnerPostbackFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("put-partner-postback"),
  (adapters, runtime) => postbackHandlers(adapters, runtime).putPartner,
);

export const deletePartnerPostbackFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("delete-partner-postback"),
  (adapters, runtime) => postbackHandlers(adapters, runtime).deletePartner,
);

export const testPartnerPostbackFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("test-partner-postback"),
  (adapters, runtime) => postbackHandlers(adapters, runtime).testPartner,
);

export const putWebhookFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("put-webhook"),
  (adapters, runtime) => postbackHandlers(adapters, runtime).putWebhook,
);

export const deleteWebhookFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("delete-webhook"),
  (adapters, runtime) => postbackHandlers(adapters, runtime).deleteWebhook,
);

export const testWebhookFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("test-webhook"),
  (adapters, runtime) => postbackHandlers(adapters, runtime).testWebhook,
);

export const putPostbackSettingsFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("put-postback-settings"),
  (adapters, runtime) => postbackHandlers(adapters, runtime).putSettings,
);

export const postbackLogFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("postback-log"),
  (adapters, runtime) => postbackHandlers(adapters, runtime).log,
);
