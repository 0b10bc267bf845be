/** The cost routes' contracts: cost rows put, and read for a window of days. */
import * as z from "zod";
import { COST_LIMITS, type CostAnswer, costRequestSchema } from "../../costs/cost-rows.ts";
import { costListQuery } from "../handlers/costs.ts";
import {
  INTERNAL,
  JSON_MEDIA_TYPE,
  NOT_JSON,
  OTHER_APP,
  type RouteContract,
  TOO_LARGE,
  tiedTo,
  UNKNOWN_PARAMETER,
  unauthorized,
} from "./shared.ts";

const putAnswer = tiedTo<{ accepted: number; replaced: number; warnings: string[] }>()(
  z
    .strictObject({
      accepted: z.number().meta({ description: "Rows stored." }),
      replaced: z
        .number()
        .meta({ description: "Of them, rows that replaced one of the same day and keys." }),
      warnings: z.array(z.string()).meta({
        description:
          "The campaigns' days this upload touched whose stored rows are at several levels of detail (a day's total and its split by country, say), which count the same spend twice.",
      }),
    })
    .meta({ id: "CostAnswer" }),
);

const costRowAnswer = tiedTo<CostAnswer>()(
  z
    .strictObject({
      day: z.string(),
      media_source: z.string(),
      campaign_id: z.string(),
      campaign_name: z.string().nullable(),
      adset_id: z.string().nullable(),
      adset_name: z.string().nullable(),
      ad_id: z.string().nullable(),
      ad_name: z.string().nullable(),
      country: z.string().nullable(),
      amount: z.number(),
      currency: z.string(),
      amount_usd: z
        .number()
        .nullable()
        .meta({ description: "At the ECB's rate of the row's day; null when there is none." }),
      impressions: z.number().nullable(),
      clicks: z.number().nullable(),
      received_at: z.iso.datetime(),
    })
    .meta({ id: "StoredCostRow" }),
);

export const COST_CONTRACTS = {
  "put-costs": {
    summary: "Report what campaigns cost",
    description: `Rows of a day's spend per media source and campaign (and ad set, ad, country when given), with impressions and clicks when known. A row for the same day and keys replaces the earlier one; the reports count one row of keys that differ only in case or Unicode form, the later. Days up to ${COST_LIMITS.maxDaysBack} back are taken, none after tomorrow (UTC: a row's day is a day of the app's time zone, which may be ahead of UTC's). Each amount is converted to USD with the ECB's rate of its day (none without a rate). A body with any row at fault stores nothing.`,
    request: {
      body: { description: `1 to ${COST_LIMITS.maxRows} rows.`, schema: costRequestSchema },
    },
    success: {
      status: 200,
      description: "The rows stored.",
      content: { [JSON_MEDIA_TYPE]: putAnswer },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("costs"),
      413: TOO_LARGE,
      422: `A row breaks a rule: the detail names it (\`body.rows[3].day: must be within ${COST_LIMITS.maxDaysBack} days\`).`,
      500: INTERNAL,
    },
  },
  "list-costs": {
    summary: "List the cost rows",
    description: "The app's cost rows of a window of days, by day.",
    request: { query: costListQuery },
    success: {
      status: 200,
      description: "The rows.",
      content: {
        [JSON_MEDIA_TYPE]: z
          .strictObject({ data: z.array(costRowAnswer) })
          .meta({ id: "CostRows" }),
      },
    },
    errors: {
      401: unauthorized("costs"),
      404: OTHER_APP,
      422: `\`from\` or \`to\` is not a day, or \`to\` is before \`from\`. ${UNKNOWN_PARAMETER}`,
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;
