/** `GET /v1/openapi.json`: the API's OpenAPI 3.1 document, public (no key). */
import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { composition } from "../../functions/adapters.ts";
import { errorResponses, type HttpResponse } from "../middleware.ts";
import { buildOpenApiDocument } from "../openapi.ts";
import { routeOf } from "../routes.ts";

export const createOpenApiHandler = () => {
  // Built on the first request, then served as is: it only changes with the code.
  let body: string | undefined;
  return middy<APIGatewayProxyEvent, HttpResponse>()
    .use(errorResponses())
    .handler(async () => {
      body ??= JSON.stringify(buildOpenApiDocument());
      return {
        statusCode: 200,
        headers: {
          "content-type": "application/json; charset=utf-8",
          "cache-control": "public, max-age=300",
        },
        body,
      };
    });
};

export const openApiFunction = /* @__PURE__ */ composition(/* @__PURE__ */ routeOf("openapi"), () =>
  createOpenApiHandler(),
);
