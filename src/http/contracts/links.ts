/** The link routes' contracts: make a link, list them, read one, disable or enable it. */
import * as z from "zod";
import { COST_MODELS } from "../../domain/touch.ts";
import { LINK_LIMITS } from "../../links/link-limits.ts";
import { linkRequestSchema, linkUpdateSchema } from "../../links/link-request.ts";
import { LINK_PAGE_LIMITS, type LinkAnswer } from "../../links/links.ts";
import { deeplinkIdParam, linkListQuery } from "../handlers/links.ts";
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

const nullableText = (description: string, example: string | null) =>
  z.string().nullable().meta({ description, example });

export const linkAnswerSchema = tiedTo<LinkAnswer>()(
  z
    .strictObject({
      deeplink_id: z.string().meta({
        description:
          "The link's id: the one path segment of its URL, 11 URL-safe characters (65 random " +
          "bits). The SDKs' link handlers return it as `deeplinkId`.",
        example: "Kx3v9QpZ2aQ",
      }),
      url: z.string().meta({
        description:
          "The URL to put in the ad: the link host, the id, then `deep_link_path` and the " +
          "custom parameters in the query, which the SDKs return as `queryParams`.",
        example: "https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7&promo=WINTER",
      }),
      media_source: z.string().meta({ description: "The source every touch is credited to." }),
      campaign_id: nullableText("Campaign identifier.", "123"),
      campaign_name: nullableText("Campaign name.", "Winter"),
      adset_id: nullableText("Ad set identifier.", null),
      adset_name: nullableText("Ad set name.", null),
      ad_id: nullableText("Ad identifier.", null),
      ad_name: nullableText("Ad name.", null),
      deep_link_path: nullableText("Where in the app the link leads.", "/levels/7"),
      params: z
        .record(z.string(), z.string())
        .meta({ description: "Custom parameters.", example: { promo: "WINTER" } }),
      android_url: nullableText("The link's own Android destination, if any.", null),
      ios_url: nullableText("The link's own iOS destination, if any.", null),
      web_url: nullableText("The link's own web destination, if any.", null),
      disabled: z.boolean().meta({
        description:
          "A disabled link still sends every tap to the web destination (or its landing page " +
          "when there is none), and records nothing.",
        example: false,
      }),
      landing_page: z.boolean().meta({
        description: "Every tap gets the link's landing page instead of a redirect.",
        example: false,
      }),
      forward_params: z.boolean().meta({
        description:
          "A web destination gets the tapped URL's parameters it lacks; false sends it as written.",
        example: true,
      }),
      preview_title: nullableText("The link's own preview title, if any.", null),
      preview_description: nullableText("The link's own preview text, if any.", null),
      preview_image_url: nullableText("The link's own preview image, if any.", null),
      cost_model: z.enum(COST_MODELS).nullable().meta({
        description:
          "How each click of the link is paid for (`CPI`: per install it wins, `CPC`: per click, `CPM`: per thousand impressions); null: no cost said.",
        example: "CPI",
      }),
      cost_value: z.number().nullable().meta({
        description: "The price in `cost_currency`, or null.",
        example: 2.5,
      }),
      cost_currency: nullableText("The price's currency (ISO 4217), or null.", "EUR"),
      created_at: z.iso.datetime().meta({ example: "2026-11-24T10:00:00.000Z" }),
    })
    .meta({ id: "Link", description: "A link of the app." }),
);

const linkPageSchema = tiedTo<{ data: LinkAnswer[]; next_cursor: string | null }>()(
  z
    .strictObject({
      data: z.array(linkAnswerSchema).meta({ description: "Links, newest first." }),
      next_cursor: z.string().nullable().meta({
        description: "Pass as `cursor` for the next page; null on the last page.",
      }),
    })
    .meta({ id: "LinkPage" }),
);

const deeplinkIdParams = z.object({
  deeplink_id: deeplinkIdParam.meta({
    description: "The link's `deeplink_id`.",
    example: "Kx3v9QpZ2aQ",
  }),
});

const NOT_FOUND = "The app has no link with this id (another app's link is as unknown).";
const BAD_ID = "The deeplink_id is not 11 letters and digits.";

export const LINK_CONTRACTS = {
  "create-link": {
    summary: "Make a link",
    description:
      "Makes a link for ads: a tap on its URL goes through the link host, which records a " +
      "click and sends the device to the Play Store (with the click id in the install " +
      "referrer), the App Store or the web, by platform. Destinations default to the app's " +
      "store page and web site (`attribution apps config`); a device with none gets the " +
      "link's landing page, which every tap gets with `landing_page: true`. Chats' and feeds' " +
      "crawlers get a preview page with the link's `preview_*` (or the app's defaults). " +
      "A link may say what its clicks cost (`cost_model`, `cost_value`, `cost_currency`, all " +
      "three or none): each click carries it, a CPC click's cost and a CPI click's install's " +
      "(when the click wins it) count in the cohorts report. " +
      "Unknown keys are ignored; null is the same as absent.",
    request: {
      body: {
        description: "The link's attribution fields, deep link and destinations.",
        schema: linkRequestSchema.meta({ id: "LinkRequest" }),
      },
    },
    success: {
      status: 201,
      description: "The link.",
      content: { [JSON_MEDIA_TYPE]: linkAnswerSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("links"),
      413: TOO_LARGE,
      422:
        "The body breaks a rule; the detail names each field at fault (`body.media_source: is " +
        `required\`, \`body.params.deep_link_path: keys may not be deep_link_path\`, \`cost_currency: is required with cost_model and cost_value\`; at most ${LINK_LIMITS.maxParams} params, and a link URL of at most ${LINK_LIMITS.maxLinkUrlLength} characters).`,
      500: INTERNAL,
    },
  },
  "list-links": {
    summary: "List the app's links",
    description: "The app's links, newest first, a page at a time.",
    request: { query: linkListQuery },
    success: {
      status: 200,
      description: "A page of links.",
      content: { [JSON_MEDIA_TYPE]: linkPageSchema },
    },
    errors: {
      401: unauthorized("links"),
      404: OTHER_APP,
      422: `\`limit\` is not from 1 to ${LINK_PAGE_LIMITS.maxLimit}, or \`cursor\` is not a page's \`next_cursor\`. ${UNKNOWN_PARAMETER}`,
      500: INTERNAL,
    },
  },
  "get-link": {
    summary: "Get a link",
    description: "One of the app's links.",
    request: { params: deeplinkIdParams },
    success: {
      status: 200,
      description: "The link.",
      content: { [JSON_MEDIA_TYPE]: linkAnswerSchema },
    },
    errors: { 401: unauthorized("links"), 404: NOT_FOUND, 422: BAD_ID, 500: INTERNAL },
  },
  "update-link": {
    summary: "Change a link",
    description:
      "Disables or enables a link, turns its landing page on or off, changes its preview " +
      "(null clears a preview field, so the app's default shows again) or its cost (the three " +
      "`cost_*` fields together, or all three null to clear it: clicks from then on carry " +
      "it); what the body leaves out stays. A disabled link still answers every tap, with a redirect to its web " +
      "destination (the link's, else the app's web site) or, without one, its landing page, " +
      "but records no click.",
    request: {
      params: deeplinkIdParams,
      body: {
        description: "What changes: at least one field.",
        schema: linkUpdateSchema.meta({ id: "LinkUpdate" }),
      },
    },
    success: {
      status: 200,
      description: "The link as it is now.",
      content: { [JSON_MEDIA_TYPE]: linkAnswerSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("links"),
      404: NOT_FOUND,
      413: TOO_LARGE,
      422: `${BAD_ID} Or the body changes nothing, names another field, or breaks a field's rule (the detail names it).`,
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;
