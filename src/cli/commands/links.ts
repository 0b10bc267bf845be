/**
 * `attribution links create|list|update|disable|enable`: an app's links, made and managed from
 * the command line with the same rules as `POST /v1/links` and `PATCH /v1/links/{id}`. `list`
 * counts each link's clicks from the lake where the CLI can read it (the embedded service's
 * data folder).
 */
import { costCellValue } from "../../costs/cost-requests.ts";
import { ValidationError } from "../../domain/errors.ts";
import type { CostModel } from "../../domain/touch.ts";
import { linkRequestSchema, linkUpdateSchema } from "../../links/link-request.ts";
import { createLinks, linkAnswer } from "../../links/links.ts";
import type { Link } from "../../ports/links.ts";
import { type AdminStores, appMustExist, withAdminStores } from "../admin-stores.ts";

export interface CreateLinkOptions {
  appId: string;
  mediaSource: string;
  campaignId?: string;
  campaignName?: string;
  adsetId?: string;
  adsetName?: string;
  adId?: string;
  adName?: string;
  deepLinkPath?: string;
  param?: Record<string, string>;
  androidUrl?: string;
  iosUrl?: string;
  webUrl?: string;
  landingPage?: boolean;
  /** False with `--no-forward-params`. */
  forwardParams?: boolean;
  previewTitle?: string;
  previewDescription?: string;
  previewImageUrl?: string;
  costModel?: string;
  costValue?: string;
  costCurrency?: string;
  json?: boolean;
  dataDir: string;
}

/**
 * `--cost-value` as the API's number, read as `costs import` reads a cost file's amount (a
 * decimal a spreadsheet writes: `.5`, `2.50`, a sign); no such number is refused as the flag.
 */
const price = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const read = costCellValue("amount", value);
  if (typeof read === "number") return read;
  throw new ValidationError(
    `--cost-value: must be a decimal number, such as 2.50 or .5: ${JSON.stringify(value)}`,
  );
};

/**
 * The API's fields of a link as the commands' flags name them (`preview_image_url` is
 * `--preview-image-url`), every field of a new link's body and of a change's.
 */
const LINK_FIELD_FLAGS: Readonly<Record<string, string>> = Object.fromEntries(
  [
    ...new Set([...Object.keys(linkRequestSchema.shape), ...Object.keys(linkUpdateSchema.shape)]),
  ].map((field) => [field, field === "params" ? "--param" : `--${field.replace(/_/g, "-")}`]),
);

const LINK_FIELD = new RegExp(`\\b(${Object.keys(LINK_FIELD_FLAGS).join("|")})\\b`, "g");

/** The API's refusal of a link's fields, naming the flags the command was given instead. */
const namingLinkFlags = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const named = error.message.replace(LINK_FIELD, (field) => LINK_FIELD_FLAGS[field] ?? field);
    throw named === error.message ? error : new ValidationError(named);
  }
};

/** The three cost flags as the API's fields. */
const costFieldsOf = (options: {
  costModel?: string;
  costValue?: string;
  costCurrency?: string;
}) => ({
  cost_model: options.costModel,
  cost_value: price(options.costValue),
  cost_currency: options.costCurrency,
});

/** What a link's cost is of, as each model charges it. */
const COST_UNITS: Record<CostModel, string> = {
  CPI: "each install a click of it wins",
  CPC: "each click",
  CPM: "each thousand impressions",
};

/** `each click costs CPC 0.1 USD`: what the link's cost is, and of what. */
const costText = (link: Link) =>
  link.cost
    ? `${COST_UNITS[link.cost.model]} costs ${link.cost.model} ${link.cost.value} ${link.cost.currency}`
    : null;

const linksOf = (stores: AdminStores) =>
  createLinks({ links: stores.links(), apps: stores.apps, linkBaseUrl: stores.linkBaseUrl });

export const createLinkCommand = async (options: CreateLinkOptions) => {
  const costFields = costFieldsOf(options);
  const link = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    return namingLinkFlags(() =>
      linksOf(stores).create(options.appId, {
        media_source: options.mediaSource,
        campaign_id: options.campaignId,
        campaign_name: options.campaignName,
        adset_id: options.adsetId,
        adset_name: options.adsetName,
        ad_id: options.adId,
        ad_name: options.adName,
        deep_link_path: options.deepLinkPath,
        params: options.param,
        android_url: options.androidUrl,
        ios_url: options.iosUrl,
        web_url: options.webUrl,
        landing_page: options.landingPage,
        forward_params: options.forwardParams,
        preview_title: options.previewTitle,
        preview_description: options.previewDescription,
        preview_image_url: options.previewImageUrl,
        ...costFields,
      }),
    );
  });
  if (options.json) {
    console.log(JSON.stringify(linkAnswer(link), null, 2));
    return;
  }
  console.log(`Created link ${link.deeplinkId} for ${link.appId} (${link.mediaSource}):`);
  console.log(`  ${link.url}`);
  const cost = costText(link);
  if (cost) console.log(`  ${cost}`);
  if (!link.forwardParams) console.log("  the web destination gets no tapped parameters");
};

const describe = (link: Link) =>
  [
    link.mediaSource,
    link.campaignName ?? link.campaignId,
    link.deepLinkPath,
    link.cost && `${link.cost.model} ${link.cost.value} ${link.cost.currency}`,
  ]
    .filter(Boolean)
    .join(" · ");

export const listLinksCommand = async (options: {
  appId: string;
  json?: boolean;
  dataDir: string;
}) => {
  const { links, counts } = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    const all: Link[] = [];
    let after: string | undefined;
    do {
      const page = await stores.links().listByApp(options.appId, { limit: 200, after });
      all.push(...page.links);
      after = page.next ?? undefined;
    } while (after);
    return { links: all, counts: await stores.clickCounts?.(options.appId) };
  });
  const clicksOf = (link: Link) => (counts ? (counts.get(link.deeplinkId) ?? 0) : null);
  if (options.json) {
    const listed = links.map((link) => ({ ...linkAnswer(link), clicks: clicksOf(link) }));
    console.log(JSON.stringify(listed, null, 2));
    return;
  }
  if (links.length === 0) {
    console.log(`No links for ${options.appId} yet: make one with \`attribution links create\`.`);
    return;
  }
  console.log(`${"deeplink_id".padEnd(12)} ${"clicks".padStart(8)}  state     link`);
  for (const link of links) {
    const clicks = clicksOf(link);
    console.log(
      `${link.deeplinkId.padEnd(12)} ${(clicks === null ? "-" : String(clicks)).padStart(8)}  ${link.disabled ? "disabled" : "active  "}  ${describe(link)}  ${link.url}`,
    );
  }
  if (!counts) {
    console.log(
      "Clicks are counted by Athena: set ATTRIBUTION_AWS_ATHENA_WORKGROUP and ATTRIBUTION_AWS_GLUE_DATABASE (the stack outputs AthenaWorkGroupName and GlueDatabaseName).",
    );
  } else {
    console.log("Clicks as delivered to the lake so far (every few seconds on this machine).");
  }
};

export const setLinkDisabledCommand = async (options: {
  appId: string;
  deeplinkId: string;
  disabled: boolean;
  dataDir: string;
}) => {
  const link = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    return linksOf(stores).update(options.appId, options.deeplinkId, {
      disabled: options.disabled,
    });
  });
  console.log(
    `Link ${link.deeplinkId} is ${link.disabled ? "disabled: its taps go to the web and are not counted" : "active"}.`,
  );
};

export interface UpdateLinkOptions {
  appId: string;
  deeplinkId: string;
  /** Where a tap goes instead of the app's default; "" clears. */
  androidUrl?: string;
  iosUrl?: string;
  webUrl?: string;
  landingPage?: "on" | "off";
  forwardParams?: "on" | "off";
  previewTitle?: string;
  previewDescription?: string;
  previewImageUrl?: string;
  /** With the other two; "" clears the link's cost. */
  costModel?: string;
  costValue?: string;
  costCurrency?: string;
  json?: boolean;
  dataDir: string;
}

/**
 * The cost flags of `links update`: the three as given, or, with `--cost-model ""`, all three
 * null (the cost is cleared; the API refuses a price or currency given with it).
 */
const costChangeOf = (options: UpdateLinkOptions) =>
  options.costModel === ""
    ? {
        cost_model: null,
        cost_value: options.costValue === undefined ? null : price(options.costValue),
        cost_currency: options.costCurrency === undefined ? null : options.costCurrency,
      }
    : costFieldsOf(options);

/** A flag's text as a preview field: "" clears it (the app's default shows again). */
const cleared = (value: string | undefined) => (value === "" ? null : value);

export const updateLinkCommand = async (options: UpdateLinkOptions) => {
  const costFields = costChangeOf(options);
  const link = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    return namingLinkFlags(() =>
      linksOf(stores).update(options.appId, options.deeplinkId, {
        android_url: cleared(options.androidUrl),
        ios_url: cleared(options.iosUrl),
        web_url: cleared(options.webUrl),
        landing_page: options.landingPage === undefined ? undefined : options.landingPage === "on",
        forward_params:
          options.forwardParams === undefined ? undefined : options.forwardParams === "on",
        preview_title: cleared(options.previewTitle),
        preview_description: cleared(options.previewDescription),
        preview_image_url: cleared(options.previewImageUrl),
        ...costFields,
      }),
    );
  });
  if (options.json) {
    console.log(JSON.stringify(linkAnswer(link), null, 2));
    return;
  }
  console.log(
    `Link ${link.deeplinkId}: ${link.landingPage ? "every tap gets its landing page" : "taps are redirected by platform"}; ${link.forwardParams ? "the web gets the tapped parameters" : "the web destination as written"}; preview ${
      [link.previewTitle, link.previewDescription, link.previewImageUrl].some((v) => v !== null)
        ? "its own"
        : "the app's"
    }; ${costText(link) ?? "no cost"}.`,
  );
};
