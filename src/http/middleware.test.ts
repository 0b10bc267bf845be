import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ValidationError } from "../domain/errors.ts";
import { logger } from "../logging/logger.ts";
import { apiEvent, CONTEXT, principal } from "./api-event.test-support.ts";
import { errorResponses, type HttpResponse, jsonResponse } from "./middleware.ts";

const chain = (handle: () => Promise<HttpResponse>) =>
  middy<APIGatewayProxyEvent, HttpResponse>().use(errorResponses()).handler(handle);

describe("errorResponses", () => {
  afterEach(() => vi.restoreAllMocks());

  it("leaves a handler's own answer alone", async () => {
    const answer = await chain(async () => jsonResponse(202, { ok: true }))(apiEvent(), CONTEXT);
    expect(answer).toEqual({
      statusCode: 202,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: '{"ok":true}',
    });
  });

  it("answers a typed error under 500 with its status and detail, and logs nothing", async () => {
    const logged = vi.spyOn(logger, "error");
    const answer = await chain(async () => {
      throw new ValidationError("timestamp: is required");
    })(apiEvent(), CONTEXT);
    expect(answer.statusCode).toBe(422);
    expect(JSON.parse(String(answer.body))).toEqual({
      error: "Unprocessable Entity",
      detail: "timestamp: is required",
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it("hides any other failure behind a 500, and logs it with the request's id and app", async () => {
    const logged = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    const failure = new Error("ECONNREFUSED 10.0.0.3:8000");
    const event = apiEvent({
      path: "/v1/events",
      authorizer: principal("com.example.game", ["ingest"]),
    });
    const answer = await chain(async () => {
      throw failure;
    })(event, CONTEXT);
    expect(answer.statusCode).toBe(500);
    expect(String(answer.body)).not.toContain("ECONNREFUSED");
    expect(logged).toHaveBeenCalledWith("request failed", {
      requestId: "request-1",
      appId: "com.example.game",
      path: "/v1/events",
      error: failure,
    });
  });
});
