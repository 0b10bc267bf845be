/**
 * `attribution partners catalog|list|set|webhook|remove|settings|test|log`: an app's postbacks
 * to ad networks and webhooks to its own backend, managed from the command line with the same
 * rules as the API's postback routes (src/postbacks/configurations.ts, src/postbacks/wire.ts):
 * secrets sealed and never printed after they are made, every URL checked, a test postback
 * that shows the request and the answer.
 */

import { lookup } from "node:dns/promises";
import { readFile } from "node:fs/promises";
import { createHttpSender } from "../../adapters/postback-sender/http-sender.ts";
import { embeddedConfig } from "../../config/embedded.ts";
import { ValidationError } from "../../domain/errors.ts";
import type { Os } from "../../domain/install-facts.ts";
import { logQuery } from "../../http/handlers/postbacks.ts";
import {
  DELIVERY_LOG_DAYS,
  type SendTarget,
  type StoredPartnerConfig,
} from "../../ports/postbacks.ts";
import { createPostbackConfigurations } from "../../postbacks/configurations.ts";
import { PARTNERS } from "../../postbacks/partners.ts";
import { isLoopbackUrl } from "../../postbacks/url-safety.ts";
import {
  catalogPage,
  logEntryAnswer,
  type PartnerRequest,
  partnerAnswer,
  partnerRequestSchema,
  settingsAnswer,
  shownUrl,
  webhookAnswer,
} from "../../postbacks/wire.ts";
import { checked } from "../../validation/issues.ts";
import { type AdminStores, appMustExist, withAdminStores } from "../admin-stores.ts";

const resolveAll = (hostname: string) => lookup(hostname, { all: true });

const configurationsOf = (stores: AdminStores) => {
  const postbacks = stores.postbacks();
  return createPostbackConfigurations({
    store: postbacks.configs,
    log: postbacks.log,
    deletions: postbacks.deletions,
    wrapper: stores.wrapper,
    resolve: resolveAll,
    allowLoopback: postbacks.allowLoopback,
    sender: createHttpSender({ allowLoopback: postbacks.allowLoopback }),
  });
};

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

/**
 * A refusal of a URL on this machine (one it names), with how to allow it while trying
 * postbacks where the target can, and, for the webhook's URL, its flag's name rather than the
 * API's field.
 */
const sayingHowToTry = async <T>(
  loopback: { readonly allowLoopback: boolean; readonly allowLoopbackBy?: string },
  urls: readonly (string | undefined)[],
  work: () => Promise<T>,
): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const message = error.message.replace(/^body\.url: /, "--url: ");
    // Named by its origin: a template's URL is said as filled, its macros gone.
    const refusedHere = urls.some(
      (url) => url !== undefined && isLoopbackUrl(url) && message.includes(new URL(url).origin),
    );
    const hint =
      !loopback.allowLoopback && loopback.allowLoopbackBy && refusedHere
        ? ` Postbacks reach this machine only while the service allows it, to try them: ${loopback.allowLoopbackBy}.`
        : "";
    throw message === error.message && hint === "" ? error : new ValidationError(message + hint);
  }
};

export const partnerCatalogCommand = (options: { json?: boolean }) => {
  const page = catalogPage();
  if (options.json) {
    print(page);
    return;
  }
  for (const partner of page.data) {
    const values = partner.values
      .map((value) => `${value.name}${value.secret ? " (secret)" : ""}`)
      .join(", ");
    console.log(`${partner.id.padEnd(12)} ${partner.name}`);
    console.log(
      `${"".padEnd(12)} ${partner.method}; installs: ${partner.installs}; events: ${partner.takes_events ? "yes" : "no"}; values: ${values || "none"}`,
    );
  }
  console.log("A partner the catalog lacks: --partner custom --template-file <template.json>.");
};

export interface SetPartnerOptions {
  appId: string;
  configId: string;
  /** The API's body, as a JSON file; the flags below change it. */
  fromFile?: string;
  partner?: string;
  templateFile?: string;
  mediaSource?: string[];
  value?: Record<string, string>;
  secretValue?: Record<string, string>;
  installs?: "won" | "all";
  /** `service_purchase=purchase`, or `service_purchase=purchase:revenue`. */
  event?: string[];
  eventWindowDays?: number;
  /** The partner's Global Vendor List id; null for none. */
  tcfVendorId?: number | null;
  enabled?: "on" | "off";
  json?: boolean;
  dataDir: string;
}

const readJson = async (path: string, what: string): Promise<unknown> => {
  try {
    return JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new ValidationError(`${what} ${path}: ${(error as Error).message}`);
  }
};

/**
 * A configuration as `partners list --json` or the API answers it, as a body that saves it
 * unchanged: the answer's own fields (its id, which values are sealed, when it changed) left out,
 * its masked secrets kept (the service restores them from the stored configuration).
 */
const bodyOfAnswer = (answer: unknown): unknown => {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) return answer;
  const {
    id: _id,
    sealed_values: _sealed,
    updated_at: _updated,
    ...body
  } = answer as Record<string, unknown>;
  return body;
};

/**
 * The body the flags describe, over the file's when one is given, else over the stored
 * configuration of the same partner: a flag left out keeps what is stored (switched off stays
 * off, mapped events stay mapped), as the dashboard's form does.
 */
export const partnerBodyOf = async (
  options: SetPartnerOptions,
  stored?: StoredPartnerConfig,
): Promise<PartnerRequest> => {
  const kept =
    stored && (options.partner === undefined || options.partner === stored.partner)
      ? checked(partnerRequestSchema, bodyOfAnswer(partnerAnswer(stored)), "stored")
      : undefined;
  const base = options.fromFile
    ? checked(
        partnerRequestSchema,
        bodyOfAnswer(await readJson(options.fromFile, "--from-file")),
        "file",
      )
    : kept;
  const partner = options.partner ?? base?.partner;
  if (!partner) throw new ValidationError("--partner is required (or a --from-file naming one).");
  const events = { ...base?.events };
  for (const mapping of options.event ?? []) {
    const match = /^([^=]+)=([^:]+)(:revenue)?$/.exec(mapping);
    if (!match?.[1] || !match[2]) {
      throw new ValidationError(`--event ${mapping}: must be ours=theirs or ours=theirs:revenue`);
    }
    events[match[1]] = { name: match[2], revenue: match[3] !== undefined };
  }
  const secrets = Object.keys(options.secretValue ?? {});
  return {
    ...base,
    partner,
    ...(options.templateFile
      ? { template: (await readJson(options.templateFile, "--template-file")) as never }
      : {}),
    ...(options.mediaSource?.length ? { media_sources: options.mediaSource } : {}),
    values: { ...base?.values, ...options.value, ...options.secretValue },
    ...(secrets.length > 0
      ? { secret_values: [...new Set([...(base?.secret_values ?? []), ...secrets])] }
      : {}),
    ...(options.installs ? { installs: options.installs } : {}),
    ...(Object.keys(events).length > 0 ? { events } : {}),
    ...(options.eventWindowDays !== undefined
      ? { event_window_days: options.eventWindowDays }
      : {}),
    ...(options.tcfVendorId !== undefined ? { tcf_vendor_id: options.tcfVendorId } : {}),
    ...(options.enabled ? { enabled: options.enabled === "on" } : {}),
  };
};

export const setPartnerCommand = async (options: SetPartnerOptions) => {
  const { stored } = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    const configurations = configurationsOf(stores);
    const existing = await stores.postbacks().configs.getPartner(options.appId, options.configId);
    const body = await partnerBodyOf(options, existing);
    const urls = [
      ...Object.values(body.values ?? {}),
      body.template?.install?.url,
      body.template?.event?.url,
    ];
    return sayingHowToTry(stores.postbacks(), urls, () =>
      configurations.putPartner(options.appId, options.configId, body),
    );
  });
  if (options.json) {
    print(partnerAnswer(stored));
    return;
  }
  const name = PARTNERS.find((partner) => partner.id === stored.partner)?.name ?? "custom template";
  console.log(
    `Saved ${stored.id} for ${stored.appId}: ${name}, ${stored.installs === "all" ? "every install" : `installs won by ${stored.mediaSources.join(", ")}`}, ${Object.keys(stored.events).length} mapped event(s), ${stored.tcfVendorId === null ? "" : `TCF vendor ${stored.tcfVendorId}, `}${stored.enabled ? "on" : "off"}.`,
  );
  const sealed = Object.keys(stored.sealedValues);
  if (sealed.length > 0) console.log(`Sealed: ${sealed.join(", ")} (never shown again).`);
};

export const setWebhookCommand = async (options: {
  appId: string;
  configId: string;
  /** Required for a new webhook; a stored one keeps its own without it. */
  url?: string;
  rotateSecret?: boolean;
  enabled?: "on" | "off";
  json?: boolean;
  dataDir: string;
}) => {
  const { stored, secret } = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    const configurations = configurationsOf(stores);
    const existing = await stores.postbacks().configs.getWebhook(options.appId, options.configId);
    const url = options.url ?? existing?.url;
    if (url === undefined) {
      throw new ValidationError(`--url is required: the app has no webhook ${options.configId}.`);
    }
    // A flag left out keeps what is stored: rotating a paused webhook's secret leaves it paused.
    const enabled = options.enabled ? options.enabled === "on" : existing?.enabled;
    return sayingHowToTry(stores.postbacks(), [url], () =>
      configurations.putWebhook(options.appId, options.configId, {
        url,
        ...(enabled === undefined ? {} : { enabled }),
        ...(options.rotateSecret ? { rotate_secret: true } : {}),
      }),
    );
  });
  if (options.json) {
    print(webhookAnswer(stored, secret));
    return;
  }
  // Masked as the API shows it: whoever reads the terminal, or its scrollback, sees no token.
  console.log(`Saved webhook ${stored.id} for ${stored.appId}: ${shownUrl(stored.url)}.`);
  if (secret) {
    console.log(`Signing secret (shown once, keep it on your backend): ${secret}`);
  }
};

export const removePostbackCommand = async (options: {
  appId: string;
  configId: string;
  webhook?: boolean;
  dataDir: string;
}) => {
  const target: SendTarget = options.webhook ? "webhook" : "partner";
  await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    await configurationsOf(stores).remove(options.appId, target, options.configId);
  });
  console.log(
    `Removed ${target} configuration ${options.configId}: its pending sends are skipped.`,
  );
};

export const postbackSettingsCommand = async (options: {
  appId: string;
  shareDeviceDataWithoutConsent: "on" | "off";
  dataDir: string;
}) => {
  const settings = {
    shareDeviceDataWithoutConsent: options.shareDeviceDataWithoutConsent === "on",
  };
  await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    await configurationsOf(stores).saveSettings(options.appId, settings);
  });
  console.log(
    settings.shareDeviceDataWithoutConsent
      ? "Device data of installs whose users were never asked now goes to ad networks."
      : "Device data goes to ad networks only for users who agreed.",
  );
};

export const listPostbacksCommand = async (options: {
  appId: string;
  json?: boolean;
  dataDir: string;
}) => {
  const listed = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    return configurationsOf(stores).list(options.appId);
  });
  if (options.json) {
    print({
      partners: listed.partners.map(partnerAnswer),
      webhooks: listed.webhooks.map((webhook) => webhookAnswer(webhook)),
      settings: settingsAnswer(listed.settings),
    });
    return;
  }
  const totals = new Map<
    string,
    { delivered: number; retry: number; failed: number; skipped: number }
  >();
  // A partner and a webhook may share an id: a webhook's counts name "webhook" as their partner.
  const totalKey = (webhook: boolean, id: string) => `${webhook ? "webhook" : "partner"}:${id}`;
  for (const count of listed.counts) {
    const key = totalKey(count.partner === "webhook", count.configId);
    const total = totals.get(key) ?? { delivered: 0, retry: 0, failed: 0, skipped: 0 };
    total.delivered += count.delivered;
    total.retry += count.retry;
    total.failed += count.failed;
    total.skipped += count.skipped;
    totals.set(key, total);
  }
  const countsOf = (key: string) => {
    const total = totals.get(key);
    return total
      ? `${total.delivered} delivered, ${total.retry} retried, ${total.failed} failed, ${total.skipped} skipped`
      : "no attempts";
  };
  if (listed.partners.length === 0 && listed.webhooks.length === 0) {
    console.log(
      `No postbacks for ${options.appId} yet: add one with \`attribution partners set\`.`,
    );
    return;
  }
  console.log(`Attempts of the last ${DELIVERY_LOG_DAYS} days:`);
  for (const config of listed.partners) {
    console.log(
      `  ${config.id.padEnd(20)} ${config.partner.padEnd(12)} ${config.enabled ? "on " : "off"}  ${countsOf(totalKey(false, config.id))}`,
    );
  }
  for (const webhook of listed.webhooks) {
    console.log(
      `  ${webhook.id.padEnd(20)} ${"webhook".padEnd(12)} ${webhook.enabled ? "on " : "off"}  ${countsOf(totalKey(true, webhook.id))}  ${shownUrl(webhook.url)}`,
    );
  }
};

export const testPostbackCommand = async (options: {
  appId: string;
  configId: string;
  webhook?: boolean;
  event?: string;
  platform?: Os;
  json?: boolean;
  dataDir: string;
}) => {
  const result = await withAdminStores(options.dataDir, async (stores) => {
    const app = await appMustExist(stores, options.appId);
    return configurationsOf(stores).test(
      options.appId,
      options.webhook ? "webhook" : "partner",
      options.configId,
      {
        kind: options.event ? "event" : "install",
        // Its store ids and other build fill the sample as a real send's (the API's test too).
        app,
        platform: options.platform ?? (app.platform === "ios" ? "ios" : "android"),
        ...(options.event ? { eventName: options.event } : {}),
      },
    );
  });
  // A script (or CI) that tests a partner's endpoint learns from the exit code that it failed.
  if (result.verdict !== "delivered") process.exitCode = 1;
  if (options.json) {
    print(result);
    return;
  }
  console.log(`${result.request.method} ${result.request.url}`);
  for (const [name, value] of Object.entries(result.request.headers)) {
    console.log(`${name}: ${value}`);
  }
  if (result.request.body !== null) console.log(`\n${result.request.body}`);
  const { response } = result;
  console.log(
    `\n→ ${response.status ?? "no answer"}${response.error ? ` (${response.error})` : ""}: ${result.verdict}`,
  );
  if (response.body) console.log(response.body);
  for (const warning of result.warnings) console.log(`\nwarning: ${warning}`);
};

/** A refusal of the page asked for, its parameters named as the flags that give them. */
const namingLogFlags = (error: unknown): never => {
  if (!(error instanceof ValidationError)) throw error;
  throw new ValidationError(error.message.replace(/(^|; )(limit|cursor):/g, "$1--$2:"));
};

/** `--limit` and `--cursor` checked by the log route's query rules, before a store is opened. */
const logPageOf = (options: { limit?: number; cursor?: string }) => {
  try {
    return checked(
      logQuery,
      {
        ...(options.limit === undefined ? {} : { limit: String(options.limit) }),
        ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
      },
      "query",
    );
  } catch (error) {
    return namingLogFlags(error);
  }
};

export const postbackLogCommand = async (options: {
  appId: string;
  limit?: number;
  /** The `next_cursor` of the page before, as the API's `cursor`. */
  cursor?: string;
  json?: boolean;
  dataDir: string;
}) => {
  const query = logPageOf(options);
  const page = await withAdminStores(options.dataDir, async (stores) => {
    await appMustExist(stores, options.appId);
    return configurationsOf(stores)
      .logPage(options.appId, {
        limit: query.limit,
        ...(query.cursor === undefined ? {} : { after: query.cursor }),
      })
      .catch(namingLogFlags);
  });
  const entries = page.entries.map(logEntryAnswer);
  if (options.json) {
    // The API's page, as `GET /v1/postbacks/log` answers it.
    print({ data: entries, next_cursor: page.next });
    return;
  }
  if (entries.length === 0 && page.next === null) {
    console.log(
      options.cursor === undefined
        ? `No attempts logged for ${options.appId} in the last ${DELIVERY_LOG_DAYS} days.`
        : "No more attempts.",
    );
    return;
  }
  for (const entry of entries) {
    const outcome =
      entry.verdict === "skipped"
        ? (entry.reason ?? "skipped")
        : entry.status === null
          ? (entry.error ?? "no answer")
          : String(entry.status);
    console.log(
      `${entry.time}  ${entry.config_id.padEnd(16)} ${entry.kind.padEnd(7)} try ${entry.attempt}  ${outcome.padEnd(4)} ${entry.verdict.padEnd(9)} ${entry.method} ${entry.url}`,
    );
  }
  if (page.next !== null) {
    const limit = options.limit === undefined ? "" : ` --limit ${options.limit}`;
    // The command as it runs: a data folder other than the one it would find again is named.
    const folder =
      options.dataDir === embeddedConfig(process.env).dataDir
        ? ""
        : ` --data-dir ${JSON.stringify(options.dataDir)}`;
    console.log(
      `More attempts: npx attribution partners log --app-id ${options.appId}${limit}${folder} --cursor ${page.next}`,
    );
  }
};
