/** The deletion routes' contracts: a request, and its progress. */
import * as z from "zod";
import type { DeletionAnswer } from "../../deletion/deletions.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { DELETION_STATUSES } from "../../ports/deletions.ts";
import { deletionRequestBody, requestIdParam, serviceIdParam } from "../handlers/deletions.ts";
import { INTERNAL, JSON_MEDIA_TYPE, type RouteContract, tiedTo, unauthorized } from "./shared.ts";

export const deletionAnswerSchema = tiedTo<DeletionAnswer>()(
  z
    .strictObject({
      request_id: z.uuid().meta({
        description: "The request's id, for GET /v1/deletions/{request_id}.",
        example: "2c8e5a8e-6b6f-4a51-9d1e-0f9a3c7b5d42",
      }),
      service_id: z.string().meta({
        description: "The install whose data is deleted.",
        example: "3f2b9c1e-7a4d-4e8b-9c0a-1d2e3f4a5b6c",
      }),
      status: z.enum(DELETION_STATUSES).meta({
        description:
          "`pending`: recorded, and the install's events already left out of every export; " +
          "`in_progress`: being purged; `completed`: the install, its customer_user_id " +
          "mapping and its events are gone from every store.",
        example: "pending",
      }),
      requested_at: z.iso.datetime().meta({
        description: "When the request was recorded (UTC, ISO 8601).",
        example: "2026-11-21T18:00:00.000Z",
      }),
      completed_at: z.iso.datetime().nullable().meta({
        description: "When the purge completed (UTC, ISO 8601); null until then.",
        example: null,
      }),
    })
    .meta({ id: "DeletionAnswer", description: "A request to delete an install's data." }),
);

const SERVICE_ID_EXAMPLE = "3f2b9c1e-7a4d-4e8b-9c0a-1d2e3f4a5b6c";

export const DELETION_CONTRACTS = {
  "delete-install": {
    summary: "Delete an install's data",
    description:
      "The SDKs' deleteUserData. Records a deletion request and answers at once: from then " +
      "on the install's events are left out of every export, and a background purge removes " +
      "the install, its customer_user_id mapping and its events from the lake within minutes. " +
      "The app's server follows it with GET /v1/deletions/{request_id}. A repeat while a " +
      "request is open answers that request, also one made at the same time (an SDK's retry " +
      "beside its first try): an install has one open request at most.",
    request: {
      params: z.object({
        service_id: serviceIdParam.meta({
          description: "The install's service_id, as sent to POST /v1/installs.",
          example: SERVICE_ID_EXAMPLE,
        }),
      }),
    },
    success: {
      status: 202,
      description: "The request is recorded; the purge follows.",
      content: { [JSON_MEDIA_TYPE]: deletionAnswerSchema },
    },
    errors: {
      401: unauthorized("ingest"),
      422: `The service_id is not 1 to ${INGEST_LIMITS.maxIdLength} characters of A-Z a-z 0-9 . _ : -.`,
      500: INTERNAL,
    },
  },
  "request-deletion": {
    summary: "Delete an install's data, from the app's servers",
    description:
      "The request DELETE /v1/installs/{service_id} makes, with a server key: for an erasure " +
      "a person asked the app's owner for, by the install's service_id (the SDKs' " +
      "getServiceId). The same request either way: one asked from the device and one from " +
      "the servers while it is open are one request.",
    request: {
      body: {
        description: "The install.",
        schema: deletionRequestBody.meta({ id: "DeletionRequestBody" }),
      },
    },
    success: {
      status: 202,
      description: "The request is recorded; the purge follows.",
      content: { [JSON_MEDIA_TYPE]: deletionAnswerSchema },
    },
    errors: {
      400: "The body is empty or is not JSON.",
      401: unauthorized("deletions"),
      413: `The body is over ${INGEST_LIMITS.maxBodyBytes} bytes.`,
      422: `The body is not {"service_id": …} with 1 to ${INGEST_LIMITS.maxIdLength} characters of A-Z a-z 0-9 . _ : -.`,
      500: INTERNAL,
    },
  },
  "deletion-status": {
    summary: "Get a deletion request's progress",
    description:
      "Where a request of DELETE /v1/installs/{service_id} or POST /v1/deletions stands.",
    request: {
      params: z.object({
        request_id: requestIdParam.meta({
          description: "The `request_id` that DELETE /v1/installs/{service_id} answered.",
          example: "2c8e5a8e-6b6f-4a51-9d1e-0f9a3c7b5d42",
        }),
      }),
    },
    success: {
      status: 200,
      description: "The request.",
      content: { [JSON_MEDIA_TYPE]: deletionAnswerSchema },
    },
    errors: {
      401: unauthorized("deletions"),
      404: "No deletion request with this id for the key's app (another app's is as unknown).",
      422: "The request_id is not a UUID.",
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;
