/**
 * The body of `POST /v1/links`: the attribution fields a link carries to every touch it gets,
 * the deep link path and custom parameters the app reads when the link opens it (installed, or
 * deferred through the install), and optional destinations per platform that replace the app's
 * store pages and web site. Unknown keys are ignored and null is the same as absent, as in the
 * ingestion bodies.
 */
import * as z from "zod";
import { costFields, refineCostFields } from "../costs/touch-cost.ts";
import { text, withoutProtoKey } from "../ingest/fields.ts";
import { namedKeys } from "../validation/issues.ts";
import { withoutControlCharacters } from "../validation/text.ts";
import { LINK_LIMITS } from "./link-limits.ts";

/** Keys a link's query carries itself; a custom parameter may not take one. */
export const RESERVED_PARAM_KEYS = ["deep_link_path"] as const;

// Names and ids every click of the link carries into the lake, the reports and the postbacks,
// where a control character (a NUL ends a string in the engines' SQL) has no place.
const field = (description: string, example: string) =>
  withoutControlCharacters(
    text()
      .min(1, { error: "must not be empty" })
      .max(LINK_LIMITS.maxFieldLength, {
        error: `must be at most ${LINK_LIMITS.maxFieldLength} characters`,
      }),
  )
    .nullish()
    .meta({ description, example });

const destination = (platform: string, example: string) =>
  z
    .url({ protocol: /^https?$/, error: "must be an http or https URL" })
    .max(LINK_LIMITS.maxUrlLength, {
      error: `must be at most ${LINK_LIMITS.maxUrlLength} characters`,
    })
    .nullish()
    .meta({
      description: `Where a tap from ${platform} goes instead of the app's default for it.`,
      example,
    });

/**
 * The characters that turn text around (embeddings, overrides, isolates): in a card they can
 * make a title read as another. The page sets each value's direction itself.
 */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;

/** What shows: a character other than white space and the invisible format characters. */
const VISIBLE = /[^\s\p{Cf}]/u;

/** Text a card shows on one line: no control characters, something visible, no bidi controls. */
const previewText = (max: number) =>
  withoutControlCharacters(
    text()
      .min(1, { error: "must not be empty" })
      .max(max, { error: `must be at most ${max} characters` })
      .refine((value) => VISIBLE.test(value), { error: "must not be blank" })
      .refine((value) => !BIDI_CONTROL.test(value), {
        error: "must not contain bidirectional control characters",
      }),
  );

/** A link preview's fields, as a link and an app's defaults take them. */
export const PREVIEW_FIELDS = {
  title: previewText(LINK_LIMITS.maxPreviewTitleLength),
  description: previewText(LINK_LIMITS.maxPreviewDescriptionLength),
  // https only: chats fetch the image, and a page served over https shows no http image.
  imageUrl: z
    .url({
      protocol: /^https$/,
      hostname: z.regexes.domain,
      error: "must be an https URL whose host is a domain name (in punycode: xn--…)",
    })
    .max(LINK_LIMITS.maxUrlLength, {
      error: `must be at most ${LINK_LIMITS.maxUrlLength} characters`,
    })
    // The page hands it to every crawler that asks: a password in it would be anyone's.
    .refine(
      (url) => {
        const parsed = URL.parse(url);
        return parsed === null || (parsed.username === "" && parsed.password === "");
      },
      { error: "must not hold a user name or password" },
    ),
} as const;

const PARAM_KEY = /^[A-Za-z0-9_.-]+$/;

const paramKeyProblem = (key: string): string | undefined => {
  if (!PARAM_KEY.test(key)) return "keys must be letters, digits, '_', '.' or '-'";
  if (key.length > LINK_LIMITS.maxParamKeyLength) {
    return `keys must be at most ${LINK_LIMITS.maxParamKeyLength} characters`;
  }
  if ((RESERVED_PARAM_KEYS as readonly string[]).includes(key)) {
    return `keys may not be ${RESERVED_PARAM_KEYS.join(", ")}`;
  }
  return undefined;
};

/**
 * The landing page, the preview and the cost, which a link takes when made and may change
 * later. The cost's three fields go together (checked on the whole body).
 */
const LINK_PAGE_FIELDS = {
  landing_page: z
    .boolean({ error: "must be true or false" })
    .nullish()
    .meta({
      description:
        "Every tap gets the link's landing page (the app's name, a button to each store it is " +
        "in, a QR code of the link on a desktop) instead of a redirect. Default false.",
      example: false,
    }),
  forward_params: z
    .boolean({ error: "must be true or false" })
    .nullish()
    .meta({
      description:
        "A web destination (the link's, else the app's) gets the tapped URL's parameters it " +
        "lacks by name (a campaign's `utm_*`, a network's `gclid`), so that the site's analytics " +
        "see the tap's campaign; false sends it as written, for a site that refuses parameters it " +
        "does not know or should not see a network's click ids. Default true.",
      example: true,
    }),
  preview_title: PREVIEW_FIELDS.title.nullish().meta({
    description: `The title of the link's card in chats and feeds (\`og:title\`), at most ${LINK_LIMITS.maxPreviewTitleLength} characters; none takes the app's default, else its name.`,
    example: "Winter Cup: play level 7 now",
  }),
  preview_description: PREVIEW_FIELDS.description.nullish().meta({
    description: `The card's text (\`og:description\`), at most ${LINK_LIMITS.maxPreviewDescriptionLength} characters; none takes the app's default.`,
    example: "Race your friends through the snowy castle.",
  }),
  preview_image_url: PREVIEW_FIELDS.imageUrl.nullish().meta({
    description:
      "The card's image (`og:image`), an https URL; none takes the app's default. At least " +
      "1200×630 pixels suits every chat.",
    example: "https://game.example.com/cards/winter.png",
  }),
  ...costFields("each click of the link"),
};

/**
 * Where a tap goes instead of the app's defaults. Not in the link's URL, so a link already
 * shared may be sent elsewhere (`PATCH`; null there clears one).
 */
const LINK_DESTINATION_FIELDS = {
  android_url: destination(
    "Android",
    "https://play.google.com/store/apps/details?id=com.example.game",
  ),
  ios_url: destination("iOS", "https://apps.apple.com/app/id1234567890"),
  web_url: destination("anything else", "https://game.example.com/winter"),
};

const linkFields = z.object(
  {
    media_source: withoutControlCharacters(
      text()
        .min(1, { error: "is required" })
        .max(LINK_LIMITS.maxFieldLength, {
          error: `must be at most ${LINK_LIMITS.maxFieldLength} characters`,
        }),
    ).meta({
      description: "The ad network or source every touch of the link is credited to.",
      example: "facebook_ads",
    }),
    campaign_id: field("Campaign identifier.", "123"),
    campaign_name: field("Campaign name.", "Winter"),
    adset_id: field("Ad set identifier.", "456"),
    adset_name: field("Ad set name.", "EU lookalikes"),
    ad_id: field("Ad identifier.", "789"),
    ad_name: field("Ad name.", "Snowy castle 15s"),
    deep_link_path: text()
      // A pattern, not startsWith: the OpenAPI document carries a pattern and drops startsWith.
      .regex(/^\//, { error: "must start with /" })
      .max(LINK_LIMITS.maxPathLength, {
        error: `must be at most ${LINK_LIMITS.maxPathLength} characters`,
      })
      .nullish()
      .meta({
        description:
          "Where in the app the link leads: the app reads it as `deep_link_path` when the link " +
          "opens it, and a new install reads it with its attribution (the deferred deep link).",
        example: "/levels/7",
      }),
    params: withoutProtoKey(
      z
        .record(
          z.string(),
          text().max(LINK_LIMITS.maxParamValueLength, {
            error: `must be at most ${LINK_LIMITS.maxParamValueLength} characters`,
          }),
          { error: "must be a map of strings" },
        )
        .superRefine((params, context) => {
          const keys = Object.keys(params);
          if (keys.length > LINK_LIMITS.maxParams) {
            context.addIssue({
              code: "custom",
              message: `must have at most ${LINK_LIMITS.maxParams} keys`,
            });
          }
          for (const key of keys) {
            const problem = paramKeyProblem(key);
            if (problem) context.addIssue({ code: "custom", path: [key], message: problem });
          }
        }),
    )
      .nullish()
      .meta({
        description:
          "Custom string parameters the link carries in its query, such as a promo code; the " +
          "SDKs return them with the link's `deep_link_path`.",
        example: { promo: "WINTER" },
      }),
    ...LINK_DESTINATION_FIELDS,
    ...LINK_PAGE_FIELDS,
  },
  { error: "must be a JSON object" },
);

/** A link's fields, the three cost fields together or none. */
export const linkRequestSchema = linkFields.superRefine(refineCostFields());

export type LinkRequest = z.output<typeof linkRequestSchema>;

/**
 * `PATCH /v1/links/{deeplink_id}`: what may change of a link, at least one of them. The cost
 * changes whole: its three fields together, or all three null to clear it.
 */
export const linkUpdateSchema = z
  .strictObject(
    {
      disabled: z.boolean({ error: "must be true or false" }).optional(),
      ...LINK_DESTINATION_FIELDS,
      ...LINK_PAGE_FIELDS,
    },
    {
      // A field it does not change named (a typo, or one in the link's URL already shared).
      error: (issue) =>
        `${issue.code === "unrecognized_keys" ? `takes no ${namedKeys(issue.keys)}: ` : ""}must be a JSON object of \`disabled\`, \`android_url\`, \`ios_url\`, \`web_url\`, \`landing_page\`, \`forward_params\`, \`preview_title\`, \`preview_description\`, \`preview_image_url\`, \`cost_model\`, \`cost_value\` or \`cost_currency\``,
    },
  )
  // A null `landing_page` or `forward_params` is absent, as in a new link's body; a null
  // destination, preview or cost clears it.
  .refine(
    (change) =>
      Object.entries(change).some(
        ([name, value]) =>
          value !== undefined &&
          !((name === "landing_page" || name === "forward_params") && value === null),
      ),
    // Only of a body it took: one refused for a field it does not take changes nothing anyway.
    { error: "must change something", when: (payload) => payload.issues.length === 0 },
  )
  .superRefine(refineCostFields({ clearing: true }));

export type LinkUpdate = z.output<typeof linkUpdateSchema>;
