/**
 * The link routes of the API: `POST /v1/links`, `GET /v1/links`, `GET /v1/links/{deeplink_id}`
 * and `PATCH /v1/links/{deeplink_id}` (disable or enable). Each is a middy chain and one call.
 */
import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import * as z from "zod";
import { ValidationError } from "../../domain/errors.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { createLinks, LINK_PAGE_LIMITS, type LinksDeps, linkAnswer } from "../../links/links.ts";
import { DEEPLINK_ID_PATTERN } from "../../touches/ids.ts";
import { formatIssues } from "../../validation/issues.ts";
import { readJsonBody } from "../json-body.ts";
import { errorResponses, type HttpResponse, jsonResponse } from "../middleware.ts";
import { pathParam } from "../path-param.ts";
import { principalOf } from "../principal.ts";

export const deeplinkIdParam = z
  .string()
  .regex(DEEPLINK_ID_PATTERN, { error: "must be the deeplink_id of one of the app's links" });

export const linkListQuery = z.object({
  limit: z.coerce
    .number({ error: "must be a number" })
    .int({ error: "must be a whole number" })
    .min(1, { error: `must be from 1 to ${LINK_PAGE_LIMITS.maxLimit}` })
    .max(LINK_PAGE_LIMITS.maxLimit, { error: `must be from 1 to ${LINK_PAGE_LIMITS.maxLimit}` })
    .default(LINK_PAGE_LIMITS.defaultLimit)
    .meta({
      description: `Links per page, 1 to ${LINK_PAGE_LIMITS.maxLimit}.`,
      example: LINK_PAGE_LIMITS.defaultLimit,
    }),
  cursor: z
    .string()
    .min(1, { error: "must not be empty" })
    .max(1_000)
    .optional()
    .meta({ description: "The `next_cursor` of the page before; none for the first page." }),
});

export const linkUpdateSchema = z.strictObject(
  { disabled: z.boolean({ error: "must be true or false" }) },
  { error: "must be a JSON object with only `disabled`" },
);

const route = (handle: (event: APIGatewayProxyEvent) => Promise<HttpResponse>) =>
  middy<APIGatewayProxyEvent, HttpResponse>().use(errorResponses()).handler(handle);

const parsed = <T>(schema: z.ZodType<T>, value: unknown, root: string): T => {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(formatIssues(result.error.issues, root));
  return result.data;
};

export const createLinkHandlers = (deps: LinksDeps) => {
  const links = createLinks(deps);
  const appOf = (event: APIGatewayProxyEvent) => principalOf(event, "links").appId;
  const body = (event: APIGatewayProxyEvent) => readJsonBody(event, INGEST_LIMITS.maxBodyBytes);
  return {
    createLink: route(async (event) =>
      jsonResponse(201, linkAnswer(await links.create(appOf(event), body(event)))),
    ),
    listLinks: route(async (event) => {
      const appId = appOf(event);
      const query = parsed(linkListQuery, event.queryStringParameters ?? {}, "query");
      const page = await links.list(appId, { limit: query.limit, after: query.cursor });
      return jsonResponse(200, { data: page.links.map(linkAnswer), next_cursor: page.next });
    }),
    getLink: route(async (event) => {
      const appId = appOf(event);
      const id = pathParam(event, "deeplink_id", deeplinkIdParam);
      return jsonResponse(200, linkAnswer(await links.get(appId, id)));
    }),
    updateLink: route(async (event) => {
      const appId = appOf(event);
      const id = pathParam(event, "deeplink_id", deeplinkIdParam);
      const update = parsed(linkUpdateSchema, body(event), "body");
      return jsonResponse(200, linkAnswer(await links.setDisabled(appId, id, update.disabled)));
    }),
  };
};
