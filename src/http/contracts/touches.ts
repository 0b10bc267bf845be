/** The contract of `POST /v1/touches`: an ad network's clicks and impressions. */
import * as z from "zod";
import type { TouchesAnswer } from "../../touches/network-touches.ts";
import { TOUCH_LIMITS, touchesRequestSchema } from "../../touches/touch-request.ts";
import {
  INTERNAL,
  JSON_MEDIA_TYPE,
  NOT_JSON,
  type RouteContract,
  TOO_LARGE,
  tiedTo,
  unauthorized,
} from "./shared.ts";

const index = z.int().min(0).meta({
  description: "The touch's position in the request's `touches` list, from 0.",
  example: 0,
});

export const touchesAnswerSchema = tiedTo<TouchesAnswer>()(
  z
    .strictObject({
      accepted: z
        .array(
          z.strictObject({
            index,
            click_id: z.string().meta({
              description:
                "The service's id of the touch (22 letters and digits). For a touch with the " +
                "network's `click_id` it is the same every time that touch is sent.",
              example: "4fQx0ZsR8kT2mB7nW1cY9d",
            }),
            duplicate: z.boolean().meta({
              description:
                "True when the touch was recorded already (the same `media_source` and " +
                "`click_id`, in this request or an earlier one): it keeps its first receipt.",
              example: false,
            }),
          }),
        )
        .meta({ description: "Touches recorded (or recorded before), in index order." }),
      rejected: z
        .array(
          z.strictObject({
            index,
            error: z.string().meta({ example: "Unprocessable Entity" }),
            detail: z.string().meta({
              description: "What is wrong with the touch, naming the field.",
              example: "touch.touch_type: must be click or impression",
            }),
          }),
        )
        .meta({ description: "Touches refused, in index order; the others were recorded." }),
    })
    .meta({ id: "TouchesAnswer", description: "One verdict per touch of the request." }),
);

export const TOUCH_CONTRACTS = {
  touches: {
    summary: "Report clicks and impressions",
    description:
      "An ad network's touches, server to server: each is checked on its own, and the good " +
      "ones are kept for matching (by advertising id, by IP and by click id) for " +
      `${TOUCH_LIMITS.maxTouchAgeDays} days and in the lake's touches table. Idempotent on ` +
      "(`media_source`, `click_id`). A touch may say what it cost (`cost_model`, " +
      "`cost_value`, `cost_currency`, all three or none; else its link's): a CPC click's and " +
      "a CPM impression's cost, and a CPI touch's install's when the touch wins it, count in " +
      "the cohorts report. A request that failed (500) may be sent again whole. With an " +
      "`Idempotency-Key` header (1 to 255 visible ASCII characters), the same request sent " +
      "again gives its touches without a `click_id` the same ids, so rows the lake took of " +
      "the failed one count once. The failed request kept only the touches whose ids come " +
      "again (a repeat may have answered for them): those with a `click_id`, and all under a " +
      "key; sent again, they are answered as duplicates and their lake rows put.",
    request: {
      body: {
        description: `1 to ${TOUCH_LIMITS.maxTouchesPerRequest} touches.`,
        schema: touchesRequestSchema,
      },
    },
    success: {
      status: 202,
      description: "Each touch's verdict.",
      content: { [JSON_MEDIA_TYPE]: touchesAnswerSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("s2s"),
      413: TOO_LARGE,
      422:
        "The envelope is wrong: the body is not a JSON object, or `touches` is not a list of 1 " +
        `to ${TOUCH_LIMITS.maxTouchesPerRequest} touches. A bad touch alone does not fail the ` +
        "request: it is rejected in the 202 answer.",
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;
