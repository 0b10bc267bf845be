/** `POST /v1/touches`: an ad network's clicks and impressions, each with its verdict. */
import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { createNetworkTouches, type NetworkTouchDeps } from "../../touches/network-touches.ts";
import { readJsonBody } from "../json-body.ts";
import { errorResponses, type HttpResponse, jsonResponse } from "../middleware.ts";
import { principalOf } from "../principal.ts";

export const createTouchesHandler = (deps: NetworkTouchDeps) => {
  const record = createNetworkTouches(deps);
  return middy<APIGatewayProxyEvent, HttpResponse>()
    .use(errorResponses())
    .handler(async (event) => {
      const { appId } = principalOf(event, "s2s");
      return jsonResponse(
        202,
        await record(appId, readJsonBody(event, INGEST_LIMITS.maxBodyBytes)),
      );
    });
};
