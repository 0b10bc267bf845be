/** The SKAdNetwork routes' contracts: the conversion value schema, ad network names, postbacks. */
import * as z from "zod";
import {
  type ConversionSchema,
  conversionSchemaRequest,
  storedConversionSchema,
} from "../../skadnetwork/conversion-schema.ts";
import type { SkadnetworkReport } from "../../skadnetwork/report.ts";
import { POSTBACK_PAGE_LIMITS, type PostbackAnswer } from "../../skadnetwork/settings.ts";
import type { UnknownPostbacks } from "../../skadnetwork/unknown.ts";
import {
  skadnetworkPostbacksQuery,
  skadnetworkReportQuery,
  unknownPostbacksQuery,
} from "../handlers/skadnetwork.ts";
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

const schemaAnswer = tiedTo<{ schema: ConversionSchema | null }>()(
  z
    .strictObject({
      schema: storedConversionSchema.nullable().meta({
        description: "The app's schema: its version, when it was saved, the three windows' rules.",
      }),
    })
    .meta({ id: "ConversionSchemaAnswer" }),
);

const networksAnswer = tiedTo<{
  networks: { ad_network_id: string; media_source: string; own: boolean }[];
}>()(
  z
    .strictObject({
      networks: z.array(
        z.strictObject({
          ad_network_id: z.string().meta({ example: "cstr6suwn9.skadnetwork" }),
          media_source: z.string().meta({ example: "googleadwords_int" }),
          own: z.boolean().meta({ description: "The app's own name, not the catalog's." }),
        }),
      ),
    })
    .meta({ id: "AdNetworks" }),
);

const postbackSchema = tiedTo<PostbackAnswer>()(
  z
    .strictObject({
      kind: z.enum(["skadnetwork", "adattributionkit"]),
      version: z
        .string()
        .meta({ description: "SKAdNetwork's version; `aak` for AdAttributionKit." }),
      received_at: z.iso.datetime(),
      ad_network_id: z.string(),
      media_source: z
        .string()
        .meta({ description: "The ad network id's name (`/v1/skadnetwork/networks`)." }),
      source_identifier: z.string().meta({ description: "The campaign: 2 to 4 digits from 4.0." }),
      app_store_id: z.string(),
      transaction_id: z.string(),
      redownload: z.boolean(),
      source_app_id: z.string().nullable(),
      source_domain: z.string().nullable(),
      fidelity_type: z.number().nullable(),
      did_win: z.boolean(),
      postback_sequence_index: z
        .number()
        .meta({ description: "The conversion window: 0, 1 or 2." }),
      conversion_value: z.number().nullable(),
      coarse_conversion_value: z.enum(["low", "medium", "high"]).nullable(),
      country_code: z.string().nullable(),
      conversion_type: z.string().nullable(),
      verification: z.enum(["verified", "unverified"]),
      environment: z.enum(["production", "development"]).nullable(),
      values_disputed: z.boolean().meta({
        description:
          "Another copy Apple signed came with other conversion values (Apple signs none, so whoever holds the postback can post it first with values of their own): neither copy's values count, and the reports count the postback with none. The values shown are the first signed copy's.",
      }),
      counted: z
        .boolean()
        .meta({ description: "Verified with Apple's production key: in every figure." }),
    })
    .meta({ id: "ApplePostback" }),
);

const postbackPage = z
  .strictObject({
    data: z.array(postbackSchema).meta({
      description:
        "Postbacks, oldest first: those stored under the app, then those Apple's production key verified that name its App Store id and were kept under no app (received before the id was set), oldest first.",
    }),
    next_cursor: z.string().nullable(),
  })
  .meta({ id: "ApplePostbackPage" });

const unknownAnswer = tiedTo<UnknownPostbacks>()(
  z
    .strictObject({
      app_store_ids: z.array(
        z.strictObject({
          app_store_id: z.string().meta({ example: "1111111111" }),
          postbacks: z.number(),
          verified: z.number().meta({
            description:
              "Of which verified with Apple's production key: Apple signed the App Store id for an install, so an app's settings are missing it. Always 0 for an id an app has now: those are that app's, in its report and listing.",
          }),
          development: z.number().meta({
            description:
              "Of which verified with a development key: a test's, which anyone can make for any App Store id (Xcode, a device's developer settings), so no sign of a real app.",
          }),
          first_received_at: z.string(),
          last_received_at: z.string(),
          app_id: z.string().nullable().meta({
            description:
              "The app whose settings name this App Store id now, null when none does: set since these postbacks came. Its verified ones are that app's; only its unverified and development ones are counted here.",
          }),
        }),
      ),
      truncated: z.boolean().meta({
        description:
          "Whether the window held more postbacks of no app than are read for one answer (20,000): a shorter window reads the rest.",
      }),
    })
    .meta({ id: "UnknownApplePostbacks" }),
);

const networksRequest = z
  .strictObject({
    networks: z.record(z.string(), z.string()).meta({
      description: "Ad network id → media source: the app's own names, replacing its earlier ones.",
      example: { "abcd1234ef.skadnetwork": "examplenet_int" },
    }),
  })
  .meta({ id: "AdNetworksRequest" });

const coarse = z.enum(["low", "medium", "high"]);

const revenueRange = z
  .strictObject({
    min: z.number().meta({ description: "The sum of the ranges' lower bounds, in USD." }),
    max: z.number().nullable().meta({
      description:
        "The sum of their upper bounds, in USD; null where a range has none (a rule with `min` alone).",
    }),
  })
  .meta({ id: "RevenueRange" });

const reportSchema = tiedTo<SkadnetworkReport>()(
  z
    .strictObject({
      postbacks: z.strictObject({
        received: z.number(),
        counted: z.number().meta({ description: "In the figures below." }),
        unverified: z.number(),
        development: z.number(),
        disputed: z.number().meta({
          description:
            "Of those counted, postbacks a second copy Apple signed disputed with other conversion values (which Apple does not sign): counted with no value.",
        }),
      }),
      revenue_usd: revenueRange.nullable().meta({
        description:
          "The revenue in USD the counted installs' conversion values state, in every window, read with the schema's `revenue_usd` ranges (a value several rules give spans their ranges; a fine value of 0, and one of a rule that reads no revenue below every rule that does, state 0; one above a rule that reads revenue, or a rule's of a window whose rules read none, states no ceiling). A postback with no value, or a disputed one, adds nothing: Apple's privacy thresholds make this a floor of what was measured. Null without a schema, or with one whose rules read no revenue.",
      }),
      campaigns: z.array(
        z.strictObject({
          media_source: z.string(),
          ad_network_id: z.string(),
          source_identifier: z.string().meta({
            description:
              "The campaign as Apple sent it: 2, 3 or 4 digits of `source-identifier` (the fewer the smaller the crowd), or `campaign-id` before 4.0.",
          }),
          identifier_field: z.enum(["source-identifier", "campaign-id"]).meta({
            description:
              "Apple's field the source identifier is: `source-identifier` (SKAdNetwork 4.0 and AdAttributionKit) or `campaign-id` (before 4.0, 1 to 100). The two number campaigns apart, so they are never one row.",
          }),
          installs: z.number().meta({
            description:
              "First-window winning postbacks, redownloads and AdAttributionKit's re-engagements apart.",
          }),
          redownloads: z.number(),
          reengagements: z.number().meta({
            description:
              "First-window winning AdAttributionKit postbacks whose conversion-type is re-engagement: users the ad brought back to the installed app.",
          }),
          later_postbacks: z.number().nullable().meta({
            description:
              "Postbacks of the second and third windows of installs and redownloads (not of re-engagements, whose windows are their own), on a row of two `source-identifier` digits only: Apple sends them with two digits whatever the first window's postback had, so they are of every campaign of the ad network ending in them (`suffix_installs`). Null on a row of three or four digits, whose later postbacks are its two digits' row's, and on a `campaign-id` row (one window before 4.0).",
          }),
          suffix_installs: z.number().nullable().meta({
            description:
              "The installs and redownloads received in the report's range of every row of the ad network whose source identifier ends in this row's two digits, this row's own among them: what those campaigns brought meanwhile, not the installs `later_postbacks` came of, which came some 8 to 41 days before their postbacks. Null where `later_postbacks` is.",
          }),
          revenue_usd: revenueRange.nullable().meta({
            description:
              "The first window's revenue the row's installs and redownloads state (the report's `revenue_usd`, for this row). Null where the report's is.",
          }),
          later_revenue_usd: revenueRange.nullable().meta({
            description:
              "The second and third windows' revenue `later_postbacks` state. Null where `later_postbacks` or the report's `revenue_usd` is.",
          }),
        }),
      ),
      values: z.array(
        z.strictObject({
          conversion: z.enum(["install", "reengagement"]).meta({
            description:
              "Whose conversion the value is: an install's, or a re-engagement's (AdAttributionKit), whose windows start at the re-engagement; the two are counted apart.",
          }),
          window: z.number(),
          fine: z.number().nullable(),
          coarse: coarse.nullable(),
          postbacks: z.number(),
          meaning: z.array(z.string()).meta({
            description:
              "The schema's rules that give an install's value; empty for a re-engagement's, which the install's schema does not describe.",
          }),
          revenue_usd: revenueRange.nullable().meta({
            description:
              "The window's revenue one postback of this value states, from the rules that give it. Null for a re-engagement's value, and where the report's `revenue_usd` is.",
          }),
        }),
      ),
      tiers: z.strictObject({ fine: z.number(), coarse_only: z.number(), none: z.number() }).meta({
        description:
          "First-window installs (redownloads too, not re-engagements) of 4.0 and AdAttributionKit by the values their postbacks carried (a postback before 4.0, which has no coarse value, is in no tier). `fine`: Apple found the crowd of like installs large enough to send the fine value (every registered install has one: 0 before any rule is met). `coarse_only`: a smaller crowd, for which Apple sends the coarse value only, of a user who met a rule. `none`: the smallest crowd, for which Apple sends no value, or that smaller crowd's install whose user met no rule: the iOS SDK registers the first launch with a fine value only and sets a coarse one once a rule is met, so there was none to send.",
      }),
    })
    .meta({ id: "SkadnetworkReport" }),
);

export const SKADNETWORK_CONTRACTS = {
  "report-skadnetwork": {
    summary: "Report SKAdNetwork installs and values",
    description:
      "The SKAdNetwork section of an iOS app's overview for a window of days: installs by ad network and campaign (source identifier), redownloads apart; each window's conversion values decoded with the app's schema; and the crowd anonymity tiers. Only postbacks verified with Apple's production key count, unless `include` says otherwise.",
    request: { query: skadnetworkReportQuery },
    success: {
      status: 200,
      description: "The section.",
      content: { [JSON_MEDIA_TYPE]: reportSchema },
    },
    errors: {
      401: unauthorized("postbacks"),
      404: OTHER_APP,
      422: `\`from\` or \`to\` is not a day, \`to\` is before \`from\` or more than 366 days after it, or \`include\` names something else. ${UNKNOWN_PARAMETER}`,
      500: INTERNAL,
    },
  },
  "get-skadnetwork-schema": {
    summary: "Get the conversion value schema",
    description: "The app's SKAdNetwork conversion value schema, or null when it has none.",
    success: {
      status: 200,
      description: "The schema.",
      content: { [JSON_MEDIA_TYPE]: schemaAnswer },
    },
    errors: { 401: unauthorized("postbacks"), 500: INTERNAL },
  },
  "put-skadnetwork-schema": {
    summary: "Save the conversion value schema",
    description:
      "Saves the three conversion windows' rules as the schema's next version, which the app's iOS SDKs take at their next configuration refresh (docs/skadnetwork.md).",
    request: {
      body: { description: "The three windows' rules.", schema: conversionSchemaRequest },
    },
    success: {
      status: 200,
      description: "The schema as saved, with its version.",
      content: { [JSON_MEDIA_TYPE]: schemaAnswer },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("postbacks"),
      413: TOO_LARGE,
      422: "A rule breaks a rule of the schema: the detail names it (`body.windows[0].rules[2].fine: must be from 1 to 63`).",
      500: INTERNAL,
    },
  },
  "get-skadnetwork-networks": {
    summary: "List the ad network names",
    description:
      "Each SKAdNetwork ad network id the service names, from its catalog and the app's own, with the media source its postbacks are reported as.",
    success: {
      status: 200,
      description: "The names.",
      content: { [JSON_MEDIA_TYPE]: networksAnswer },
    },
    errors: { 401: unauthorized("postbacks"), 500: INTERNAL },
  },
  "put-skadnetwork-networks": {
    summary: "Save the app's ad network names",
    description: "Replaces the app's own names of ad network ids; `{}` clears them.",
    request: { body: { description: "The names.", schema: networksRequest } },
    success: {
      status: 200,
      description: "Every name as it now stands.",
      content: { [JSON_MEDIA_TYPE]: networksAnswer },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("postbacks"),
      413: TOO_LARGE,
      422: "An id is not an ad network id (`<id>.skadnetwork`: letters, digits, `.`, `_`, `-`), or a name is not a media source.",
      500: INTERNAL,
    },
  },
  "list-skadnetwork-postbacks": {
    summary: "List Apple's postbacks",
    description:
      "The app's SKAdNetwork and AdAttributionKit postbacks received in a window of days, oldest first, a page at a time, each with its verification: for the owner's own analysis (`attribution skadnetwork export` writes them as CSV).",
    request: { query: skadnetworkPostbacksQuery },
    success: {
      status: 200,
      description: "A page of postbacks.",
      content: { [JSON_MEDIA_TYPE]: postbackPage },
    },
    errors: {
      401: unauthorized("postbacks"),
      404: OTHER_APP,
      422: `\`from\` or \`to\` is not a day, \`to\` is before \`from\` or more than 366 days after it, \`limit\` is not from 1 to ${POSTBACK_PAGE_LIMITS.maxLimit}, or \`cursor\` is not a page's \`next_cursor\`. ${UNKNOWN_PARAMETER}`,
      500: INTERNAL,
    },
  },
  "unknown-skadnetwork-postbacks": {
    summary: "Count the postbacks of no app",
    description:
      "Apple's postbacks received in a window of days naming an App Store id no app's settings had when they came, kept under no app, counted by that id: so an App Store id missing from an app's settings, or mistyped there, is found. For the service's admins only (a dashboard session).",
    request: { query: unknownPostbacksQuery },
    success: {
      status: 200,
      description: "The App Store ids, most postbacks first.",
      content: { [JSON_MEDIA_TYPE]: unknownAnswer },
    },
    errors: {
      401: "No dashboard session (sign in), the session is over, or its person is not an admin of the service.",
      422: `\`from\` or \`to\` is not a day, or \`to\` is before \`from\` or more than 366 days after it. ${UNKNOWN_PARAMETER}`,
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;
