import type { APIGatewayProxyEvent } from "aws-lambda";
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { createLinks, LINK_PAGE_LIMITS, type LinksDeps, linkAnswer } from "../../links/links.ts";
import { deeplinkIdField } from "../../touches/ids.ts";
import { routeQuery } from "../../validation/query.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { pageParams } from "../page-query.ts";
import { pathParam } from "../path-param.ts";
import { appQuery, principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

export const deeplinkIdParam = deeplinkIdField();

export const linkListQuery = routeQuery(pageParams("Links", LINK_PAGE_LIMITS));

export const createLinkHandlers = (deps: LinksDeps) => {
  const links = createLinks(deps);
  const appOf = (event: APIGatewayProxyEvent) => principalOf(event, "links").appId;
  const body = (event: APIGatewayProxyEvent) => readJsonBody(event, INGEST_LIMITS.maxBodyBytes);
  return {
    createLink: httpRoute(async (event) =>
      jsonResponse(201, linkAnswer(await links.create(appOf(event), body(event)))),
    ),
    listLinks: httpRoute(async (event) => {
      const { appId, query } = appQuery(event, "links", linkListQuery);
      const page = await links.list(appId, { limit: query.limit, after: query.cursor });
      return jsonResponse(200, { data: page.links.map(linkAnswer), next_cursor: page.next });
    }),
    getLink: httpRoute(async (event) => {
      const appId = appOf(event);
      const id = pathParam(event, "deeplink_id", deeplinkIdParam);
      return jsonResponse(200, linkAnswer(await links.get(appId, id)));
    }),
    updateLink: httpRoute(async (event) => {
      const appId = appOf(event);
      const id = pathParam(event, "deeplink_id", deeplinkIdParam);
      return jsonResponse(200, linkAnswer(await links.update(appId, id, body(event))));
    }),
  };
};

/** The four link routes share one composition. */
const linkHandlers = /* @__PURE__ */ sharedBy(
  (adapters: Adapters<ReturnType<typeof routeOf<"create-link">>["uses"]>, runtime: Runtime) =>
    createLinkHandlers({
      links: runtime.links(adapters.tables.links),
      apps: runtime.apps(adapters.tables.apps),
      linkBaseUrl: adapters.linkBaseUrl,
    }),
);

export const createLinkFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("create-link"),
  (adapters, runtime) => linkHandlers(adapters, runtime).createLink,
);

export const listLinksFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("list-links"),
  (adapters, runtime) => linkHandlers(adapters, runtime).listLinks,
);

export const getLinkFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("get-link"),
  (adapters, runtime) => linkHandlers(adapters, runtime).getLink,
);

export const updateLinkFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("update-link"),
  (adapters, runtime) => linkHandlers(adapters, runtime).updateLink,
);
